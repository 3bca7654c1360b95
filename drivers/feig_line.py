"""The line to a FEIG reader: a serial port (pyserial), a TCP connection or FEIG's USB interface (pyusb, vendor
bulk endpoints 0x02 out, 0x81 in); bytes in and out, no protocol."""

from __future__ import annotations

import contextlib
import socket
import termios
from typing import Any, Protocol

import serial
import usb.core
import usb.util

from drivers.feig_settings import FeigSettings
from firmware_bridge.errors import DeviceError


class Line(Protocol):
    def write(self, data: bytes) -> None: ...

    def read(self) -> bytes: ...

    def close(self) -> None: ...


class SerialLine:
    def __init__(self, settings: FeigSettings) -> None:
        try:
            self._port = serial.Serial(settings.path, baudrate=settings.baud, parity=settings.parity,
                                       bytesize=serial.EIGHTBITS, stopbits=serial.STOPBITS_ONE, timeout=0.02)
        except termios.error as error:  # pyserial lets the line settings' refusal through unwrapped
            raise DeviceError(f"{settings.path}: the line refused {settings.baud} baud 8{settings.parity}1: "
                              f"{error}") from error
        self._port.reset_input_buffer()

    def write(self, data: bytes) -> None:
        self._port.write(data)

    def read(self) -> bytes:
        data: bytes = self._port.read(max(1, self._port.in_waiting))
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError, serial.SerialException):
            self._port.close()


class TcpLine:
    def __init__(self, settings: FeigSettings) -> None:
        assert settings.tcp_port is not None
        self._socket = socket.create_connection((settings.path, settings.tcp_port), timeout=settings.timeout)
        self._socket.settimeout(0.02)

    def write(self, data: bytes) -> None:
        self._socket.sendall(data)

    def read(self) -> bytes:
        try:
            data = self._socket.recv(65536)
        except TimeoutError:
            return b""
        if not data:
            raise ConnectionResetError("the reader closed the connection")
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._socket.close()


USB_OUT = 0x02
USB_IN = 0x81


class UsbLine:
    """FEIG's USB interface through pyusb; `backend` is pyusb's (libusb by default, a simulated one in CI)."""

    def __init__(self, settings: FeigSettings, backend: Any = None) -> None:
        match: dict[str, int] = {"idVendor": settings.usb_vendor}
        if settings.usb_product is not None:
            match["idProduct"] = settings.usb_product
        devices = list(usb.core.find(find_all=True, backend=backend, **match))
        if settings.usb_serial is not None:
            devices = [device for device in devices if _serial_of(device) == settings.usb_serial]
        if not devices:
            raise DeviceError(f"no FEIG reader on USB ({settings.where})")
        self._device = devices[0]
        self._timeout_ms = max(1, round(settings.timeout * 1000))
        try:
            self._device.set_configuration()
        except BaseException:
            self.close()
            raise

    def write(self, data: bytes) -> None:
        self._device.write(USB_OUT, data, self._timeout_ms)

    def read(self) -> bytes:
        try:
            return bytes(self._device.read(USB_IN, 16384, 20))
        except usb.core.USBTimeoutError:
            return b""

    def close(self) -> None:
        with contextlib.suppress(usb.core.USBError):
            usb.util.dispose_resources(self._device)


def _serial_of(device: Any) -> str | None:
    """The device's serial number; None when it cannot be read (no udev permission for its strings)."""
    try:
        serial_number: str | None = device.serial_number
    except (ValueError, usb.core.USBError):
        return None
    return serial_number
