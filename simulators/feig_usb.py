"""A simulated FEIG reader on USB: a pyusb backend whose one device is a `FeigFirmware`, so the real driver's
USB line (``feig+usb://``, drivers/feig_line.py) runs in CI.

The device shows FEIG's vendor id (0x0AB1), one vendor-specific interface with bulk endpoints 0x02 (out) and
0x81 (in), and a serial number. A request written to 0x02 is answered on 0x81 once the time the firmware says it
takes has passed (the USB transfer itself is not timed). `unplug` and `replug` pull the cable: handles of an
earlier plug fail with ENODEV, as libusb's do.
"""

from __future__ import annotations

import array
import errno
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import usb.backend
import usb.core

from firmware_bridge.feig import FrameDecoder
from simulators.feig_firmware import FeigFirmware
from simulators.usb_descriptors import (
    Descriptor,
    configuration,
    copy_string,
    endpoint,
    interface,
    no_device,
    pipe_error,
)

VENDOR = 0x0AB1
PRODUCT = 0x0004
OUT_ENDPOINT = 0x02
IN_ENDPOINT = 0x81


@dataclass(frozen=True, slots=True)
class _Plugged:
    generation: int


@dataclass(slots=True)
class _Handle:
    generation: int
    decoder: FrameDecoder = field(default_factory=lambda: FrameDecoder(advanced=None))
    replies: bytearray = field(default_factory=bytearray)
    due: float = 0.0  # when the reader has finished the last request
    ready: threading.Condition = field(default_factory=threading.Condition)


class FeigUsbBackend(usb.backend.IBackend):  # type: ignore[misc]
    """A pyusb backend holding one simulated FEIG reader (`firmware`), plugged in until `unplug`."""

    def __init__(self, firmware: FeigFirmware, *, serial: str = "FEIG-SIM-0001", product: int = PRODUCT) -> None:
        super().__init__()
        self.firmware = firmware
        self.serial = serial
        self.product = product
        self.plugged = True
        self.generation = 0

    def unplug(self) -> None:
        self.plugged = False

    def replug(self) -> None:
        self.plugged = True
        self.generation += 1

    def _alive(self, generation: int) -> None:
        if not self.plugged or generation != self.generation:
            raise no_device()

    # -- enumeration and descriptors -------------------------------------------------------------
    def enumerate_devices(self) -> Iterator[_Plugged]:
        return iter([_Plugged(self.generation)] if self.plugged else [])

    def get_parent(self, dev: _Plugged) -> None:
        return None

    def get_device_descriptor(self, dev: _Plugged) -> Descriptor:
        return Descriptor({
            "bLength": 18, "bDescriptorType": 1, "bcdUSB": 0x0200, "bDeviceClass": 0, "bDeviceSubClass": 0,
            "bDeviceProtocol": 0, "bMaxPacketSize0": 64, "idVendor": VENDOR, "idProduct": self.product,
            "bcdDevice": 0x0100, "iManufacturer": 1, "iProduct": 2, "iSerialNumber": 3, "bNumConfigurations": 1,
            "address": 3, "bus": 1, "port_number": 1, "port_numbers": (1,), "speed": 2,
        })

    def get_configuration_descriptor(self, dev: _Plugged, config: int) -> Descriptor:
        return configuration()

    def get_interface_descriptor(self, dev: _Plugged, intf: int, alt: int, config: int) -> Descriptor:
        return interface(intf, alt)

    def get_endpoint_descriptor(self, dev: _Plugged, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        return endpoint(ep, out_address=OUT_ENDPOINT, in_address=IN_ENDPOINT)

    # -- the handle --------------------------------------------------------------------------------
    def open_device(self, dev: _Plugged) -> _Handle:
        self._alive(dev.generation)
        return _Handle(dev.generation)

    def close_device(self, dev_handle: _Handle) -> None:
        return None

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        self._alive(dev_handle.generation)

    def get_configuration(self, dev_handle: _Handle) -> int:
        self._alive(dev_handle.generation)
        return 1

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._alive(dev_handle.generation)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        return None

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        return False

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array.array[int], timeout: int) -> int:
        self._alive(dev_handle.generation)
        strings = {1: "FEIG ELECTRONIC (simulated)", 2: "ISO 15693 reader", 3: self.serial}
        return copy_string(bmRequestType, bRequest, wValue, data, strings)

    # -- the bulk endpoints: ISO-Host frames -------------------------------------------------------
    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        self._alive(dev_handle.generation)
        if ep != OUT_ENDPOINT:
            raise pipe_error()
        for frame in dev_handle.decoder.feed(data.tobytes()):
            reply, seconds = self.firmware.answer(frame)
            if reply is None:
                continue
            with dev_handle.ready:
                dev_handle.due = max(dev_handle.due, time.monotonic()) + seconds
                dev_handle.replies += reply.to_bytes()
                dev_handle.ready.notify_all()
        return len(data)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        if ep != IN_ENDPOINT:
            raise pipe_error()
        deadline = time.monotonic() + (timeout or 1000) / 1000
        with dev_handle.ready:
            while True:
                self._alive(dev_handle.generation)
                now = time.monotonic()
                if dev_handle.replies and now >= dev_handle.due:
                    break
                wait = min(deadline, dev_handle.due if dev_handle.replies else deadline) - now
                if wait <= 0:
                    raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
                dev_handle.ready.wait(wait)
            size = min(len(buff), len(dev_handle.replies))
            buff[:size] = array.array("B", dev_handle.replies[:size])
            del dev_handle.replies[:size]
            return size
