"""What a simulated vendor-bulk USB reader shows pyusb: its descriptors, its strings, a pulled cable's error.

Both simulated readers behind a pyusb backend (simulators.rfid_backend: our chip reader, simulators.feig_usb: a
FEIG reader) are one configuration with one vendor-specific interface and two bulk endpoints (out, in), serial
number in string 3; only the ids, the endpoint addresses and the strings differ.
"""

from __future__ import annotations

import array
import errno
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import usb.core

__all__ = ["PACKET_SIZE", "Descriptor", "configuration", "copy_string", "endpoint", "interface", "no_device",
           "pipe_error"]

PACKET_SIZE = 64  # the bulk endpoints' wMaxPacketSize (full-speed bulk)


@dataclass(frozen=True, slots=True)
class Descriptor:
    """A descriptor: pyusb reads its fields as attributes."""

    fields: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None


def no_device() -> usb.core.USBError:
    """What libusb says when the cable is pulled (LIBUSB_ERROR_NO_DEVICE)."""
    return usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)


def pipe_error() -> usb.core.USBError:
    """What libusb says of a request the device stalls (LIBUSB_ERROR_PIPE)."""
    return usb.core.USBError("Pipe error", -9, errno.EPIPE)


def configuration() -> Descriptor:
    return Descriptor({
        "bLength": 9, "bDescriptorType": 2, "wTotalLength": 32, "bNumInterfaces": 1, "bConfigurationValue": 1,
        "iConfiguration": 0, "bmAttributes": 0x80, "bMaxPower": 250, "extra_descriptors": [],
    })


def interface(intf: int, alt: int) -> Descriptor:
    """The one vendor-specific interface (0, alternate setting 0) and its two endpoints."""
    if intf != 0 or alt != 0:
        raise IndexError(f"no interface {intf}/{alt}")
    return Descriptor({
        "bLength": 9, "bDescriptorType": 4, "bInterfaceNumber": 0, "bAlternateSetting": 0, "bNumEndpoints": 2,
        "bInterfaceClass": 0xFF, "bInterfaceSubClass": 0, "bInterfaceProtocol": 0, "iInterface": 0,
        "extra_descriptors": [],
    })


def endpoint(ep: int, *, out_address: int, in_address: int) -> Descriptor:
    """Endpoint `ep` of the interface: 0 the bulk out, 1 the bulk in."""
    if ep not in (0, 1):
        raise IndexError(f"no endpoint {ep}")
    return Descriptor({
        "bLength": 7, "bDescriptorType": 5, "bEndpointAddress": (out_address, in_address)[ep],
        "bmAttributes": 0x02, "wMaxPacketSize": PACKET_SIZE, "bInterval": 0, "bRefresh": 0, "bSynchAddress": 0,
        "extra_descriptors": [],
    })


def copy_string(request_type: int, request: int, value: int, data: array.array[int],
                strings: Mapping[int, str]) -> int:
    """Answer a control transfer, which must be GET_DESCRIPTOR(string): the string `value & 0xFF` of `strings`
    (index 0: the language, US English) copied into `data`; its size. Any other request stalls."""
    if request_type != 0x80 or request != 6 or value >> 8 != 3:  # only GET_DESCRIPTOR(string)
        raise pipe_error()
    index = value & 0xFF
    payload = (0x0409).to_bytes(2, "little") if index == 0 else strings.get(index, "").encode("utf-16-le")
    descriptor = bytes((2 + len(payload), 3)) + payload
    size = min(len(descriptor), len(data))
    data[:size] = array.array("B", descriptor[:size])
    return size
