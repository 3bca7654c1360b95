"""A broker that closes the connection before accepting the session: the connection fails at once, naming why.

With TLS 1.3 a listener that requires a client certificate checks it after the handshake: the client's
connect succeeds, then the broker's alert ("certificate required") ends the socket before any CONNACK.
aiomqtt ignores a disconnection before the CONNACK and waits out its timeout ("Operation timed out"); here
the connection fails on the disconnection with the last error paho reported, so the floor's log line names
the refusal. The hook is dropped once the session is accepted (paho then formats no log line for it).
"""

from __future__ import annotations

from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt


def fail_fast_on_refusal(client: aiomqtt.Client) -> aiomqtt.Client:
    """`client`, whose connection fails as soon as the broker closes it before the CONNACK."""
    paho = client._client
    connected = client._connected
    errors: list[str] = []
    on_disconnect = paho.on_disconnect

    def record(_paho: mqtt.Client, _userdata: Any, level: int, text: str) -> None:
        if connected.done():
            paho.on_log = None
        elif level == mqtt.MQTT_LOG_ERR:
            errors.append(text)

    def closed(*args: Any) -> None:
        if not connected.done():
            reason = errors[-1] if errors else "no reason given"
            connected.set_exception(aiomqtt.MqttError(f"the broker closed the connection before accepting the "
                                                      f"session: {reason}"))
        if on_disconnect is not None:
            on_disconnect(*args)

    paho.on_log = record
    paho.on_disconnect = closed
    return client
