"""The bench's FEIG reader: `table-bench run --reader feig` puts a FEIG ISO-Host reader where the reference USB
reader stands (docs/bench.md).

Every zone of the scenario lies under one channel of a two-level antenna multiplexer the reader drives (channels
11, 12, ... 18, 21, ...: docs/protocols/feig.md 6), the simulated reader (simulators/feig_reader.py) answers on a
pty at realistic timing, and the real driver (drivers/feig_reader.py) reads it over the serial line. The bench's
hands place chips and pull the cable with the same calls as on the USB reader.
"""

from __future__ import annotations

from collections.abc import Sequence

from drivers.chip_reader import ReaderSettings, UsbChipReader
from drivers.feig_reader import FeigChipReader
from drivers.feig_settings import FeigSettings
from drivers.ports import ChipReader
from simulators.bench.devices import DeviceChoice
from simulators.feig_reader import SimulatedFeigReader, level_number
from simulators.rfid_backend import SimulatedReader

__all__ = ["READERS", "SimulatedFeigReader", "feig_driver", "feig_reader", "other_reader"]

READERS = ("usb", "feig")  # `table-bench run --reader`: the reference USB reader, or a FEIG reader


def feig_reader(zones: Sequence[str], *, seed: int, miss_rate: float) -> SimulatedFeigReader:
    """The simulated FEIG reader of a scenario's zones (not started)."""
    antennas = {level_number(index): zone for index, zone in enumerate(zones)}
    return SimulatedFeigReader(antennas, mux=True, address=0, seed=seed, miss_rate=miss_rate)


def feig_driver(simulated: SimulatedFeigReader, *, scan_interval: float) -> FeigChipReader:
    """The real driver on the simulated reader's serial line, as the bench's runtime uses it."""
    antennas = {antenna: zone for zone, antenna in simulated.firmware.zones.items()}
    return FeigChipReader(FeigSettings(antenna_zones=antennas, path=str(simulated.link), address=0, mux=True,
                                       name="bench-reader", scan_interval=scan_interval, reconnect_interval=0.1))


def other_reader(choice: DeviceChoice, simulated: SimulatedReader | SimulatedFeigReader, *,
                 scan_interval: float) -> ChipReader:
    """The driver of a reader other than the bench's simulated USB one: a real reader named by URL in the devices
    file (``usb://``, ``feig://``, ``feig+tcp://``, ``feig+usb://``), or the simulated FEIG reader."""
    if choice.real("chips") and choice.chips.startswith("feig"):
        return FeigChipReader(FeigSettings.from_url(choice.chips, choice.antennas, name="bench-reader"))
    if choice.real("chips"):
        return UsbChipReader(ReaderSettings.from_url(choice.chips, choice.antennas, name="bench-reader"))
    assert isinstance(simulated, SimulatedFeigReader)
    return feig_driver(simulated, scan_interval=scan_interval)
