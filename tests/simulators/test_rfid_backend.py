"""The simulated chip reader, seen through plain pyusb calls."""

from __future__ import annotations

import errno

import pytest
import usb.core
import usb.util

from firmware_bridge.rfid import (
    AntennaStatus,
    ErrorCode,
    ErrorReply,
    FrameDecoder,
    Identify,
    Identity,
    Inventory,
    InventoryResult,
    Message,
    decode_message,
    encode,
)
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import ChipIssuer


def transact(device: usb.core.Device, message: Message, seq: int = 1) -> Message:
    device.write(0x01, encode(message, seq))
    frames = FrameDecoder().feed(bytes(device.read(0x81, 16384, 200)))
    assert [frame.seq for frame in frames] == [seq]
    return decode_message(frames[0])


def test_pyusb_finds_the_reader_and_reads_its_strings() -> None:
    backend = RfidBackend([SimulatedReader({1: "box1"}, serial="RDR-0042")])
    device = usb.core.find(idVendor=SIM_VENDOR_ID, idProduct=SIM_PRODUCT_ID, backend=backend)
    assert device is not None
    assert device.serial_number == "RDR-0042"
    device.set_configuration()
    interface = device.get_active_configuration()[(0, 0)]
    assert interface.bInterfaceClass == 0xFF
    assert [endpoint.bEndpointAddress for endpoint in interface] == [0x01, 0x81]
    reply = transact(device, Identify())
    assert isinstance(reply, Identity)
    assert (reply.major, reply.minor, reply.antennas) == (1, 0, 21)
    usb.util.dispose_resources(device)


def test_a_large_stack_spans_many_packets_and_too_many_tags_is_flagged() -> None:
    reader = SimulatedReader({1: "box1"}, max_tags=30)
    issuer = ChipIssuer(3)
    reader.place("box1", *issuer.issue(500, 40))
    device = usb.core.find(backend=RfidBackend([reader]))
    assert device is not None
    result = transact(device, Inventory(antennas=(1,)))
    assert isinstance(result, InventoryResult)
    assert result.reports[0].status == AntennaStatus.TOO_MANY_TAGS
    assert len(result.reports[0].tags) == 30


def test_miss_rate_is_seeded_and_roughly_what_was_asked() -> None:
    def misses(seed: int) -> list[int]:
        reader = SimulatedReader({1: "box1"}, miss_rate=0.2, seed=seed)
        reader.place("box1", *ChipIssuer(3).issue(100, 50))
        device = usb.core.find(backend=RfidBackend([reader]))
        counts = []
        for seq in range(20):
            result = transact(device, Inventory(antennas=(1,)), seq)
            assert isinstance(result, InventoryResult)
            counts.append(50 - len(result.reports[0].tags))
        return counts

    assert misses(5) == misses(5)
    assert 0.1 < sum(misses(5)) / 1000 < 0.3


def test_bad_requests_get_error_replies() -> None:
    device = usb.core.find(backend=RfidBackend([SimulatedReader(antennas=4)]))
    reply = transact(device, Inventory(antennas=(9,)))
    assert isinstance(reply, ErrorReply) and reply.code == ErrorCode.BAD_REQUEST
    reply = transact(device, Identity(major=1, minor=0, antennas=1, max_tags=1, firmware="", serial=""))
    assert isinstance(reply, ErrorReply) and reply.code == ErrorCode.UNKNOWN_TYPE


def test_unplug_fails_transfers_like_libusb_and_hides_the_device() -> None:
    reader = SimulatedReader()
    backend = RfidBackend([reader])
    device = usb.core.find(backend=backend)
    assert device is not None
    reader.unplug()
    with pytest.raises(usb.core.USBError) as caught:
        device.write(0x01, encode(Identify(), 1))
    assert caught.value.errno == errno.ENODEV
    assert usb.core.find(backend=backend) is None
    reader.replug()
    with pytest.raises(usb.core.USBError):  # the old handle died with the unplug
        device.write(0x01, encode(Identify(), 1))
    fresh = usb.core.find(backend=backend)
    assert fresh is not None
    assert isinstance(transact(fresh, Identify()), Identity)


def test_a_silent_reader_times_out() -> None:
    device = usb.core.find(backend=RfidBackend([SimulatedReader()]))
    assert device is not None
    with pytest.raises(usb.core.USBTimeoutError):
        device.read(0x81, 64, 20)
