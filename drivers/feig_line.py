"""The line to a FEIG reader: a serial port (pyserial) or a TCP connection, bytes in and out, no protocol."""

from __future__ import annotations

import contextlib
import socket
import termios
from typing import Protocol

import serial

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
