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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import usb.backend
import usb.core

from firmware_bridge.feig import FrameDecoder
from simulators.feig_firmware import FeigFirmware

VENDOR = 0x0AB1
PRODUCT = 0x0004
OUT_ENDPOINT = 0x02
IN_ENDPOINT = 0x81


@dataclass(frozen=True, slots=True)
class _Fields:
    """A descriptor: pyusb reads its fields as attributes."""

    values: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


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


def _no_device() -> usb.core.USBError:
    return usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)


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
            raise _no_device()

    # -- enumeration and descriptors -------------------------------------------------------------
    def enumerate_devices(self) -> Iterator[_Plugged]:
        return iter([_Plugged(self.generation)] if self.plugged else [])

    def get_parent(self, dev: _Plugged) -> None:
        return None

    def get_device_descriptor(self, dev: _Plugged) -> _Fields:
        return _Fields({
            "bLength": 18, "bDescriptorType": 1, "bcdUSB": 0x0200, "bDeviceClass": 0, "bDeviceSubClass": 0,
            "bDeviceProtocol": 0, "bMaxPacketSize0": 64, "idVendor": VENDOR, "idProduct": self.product,
            "bcdDevice": 0x0100, "iManufacturer": 1, "iProduct": 2, "iSerialNumber": 3, "bNumConfigurations": 1,
            "address": 3, "bus": 1, "port_number": 1, "port_numbers": (1,), "speed": 2,
        })

    def get_configuration_descriptor(self, dev: _Plugged, config: int) -> _Fields:
        return _Fields({
            "bLength": 9, "bDescriptorType": 2, "wTotalLength": 32, "bNumInterfaces": 1, "bConfigurationValue": 1,
            "iConfiguration": 0, "bmAttributes": 0x80, "bMaxPower": 250, "extra_descriptors": [],
        })

    def get_interface_descriptor(self, dev: _Plugged, intf: int, alt: int, config: int) -> _Fields:
        if intf != 0 or alt != 0:
            raise IndexError(f"no interface {intf}/{alt}")
        return _Fields({
            "bLength": 9, "bDescriptorType": 4, "bInterfaceNumber": 0, "bAlternateSetting": 0, "bNumEndpoints": 2,
            "bInterfaceClass": 0xFF, "bInterfaceSubClass": 0, "bInterfaceProtocol": 0, "iInterface": 0,
            "extra_descriptors": [],
        })

    def get_endpoint_descriptor(self, dev: _Plugged, ep: int, intf: int, alt: int, config: int) -> _Fields:
        if ep not in (0, 1):
            raise IndexError(f"no endpoint {ep}")
        return _Fields({
            "bLength": 7, "bDescriptorType": 5, "bEndpointAddress": (OUT_ENDPOINT, IN_ENDPOINT)[ep],
            "bmAttributes": 0x02, "wMaxPacketSize": 64, "bInterval": 0, "bRefresh": 0, "bSynchAddress": 0,
            "extra_descriptors": [],
        })

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
        if bmRequestType != 0x80 or bRequest != 6 or wValue >> 8 != 3:  # only GET_DESCRIPTOR(string)
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        index = wValue & 0xFF
        text = {1: "FEIG ELECTRONIC (simulated)", 2: "ISO 15693 reader", 3: self.serial}.get(index, "")
        payload = (0x0409).to_bytes(2, "little") if index == 0 else text.encode("utf-16-le")
        descriptor = bytes((2 + len(payload), 3)) + payload
        size = min(len(descriptor), len(data))
        data[:size] = array.array("B", descriptor[:size])
        return size

    # -- the bulk endpoints: ISO-Host frames -------------------------------------------------------
    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        self._alive(dev_handle.generation)
        if ep != OUT_ENDPOINT:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
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
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
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
