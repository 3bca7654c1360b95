"""Publishing on one connection: a batch pipelined until the broker acknowledged all of it, and the watch on the
connection that ends when it drops."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import aiomqtt

Publication = tuple[str, bytes, int, bool]  # topic, payload, qos, retain


async def publish_all(client: aiomqtt.Client, watcher: asyncio.Task[None] | None,
                      publications: Sequence[Publication], *, publish_timeout: float) -> None:
    """Publish all `publications` pipelined, in order; return when the broker acknowledged every one.

    Raises MqttError if the connection drops first (`watcher` ends: paho does not fail the pending publishes
    itself, they would wait for their timeout).
    """
    tasks = [
        asyncio.create_task(client.publish(topic, payload, qos=qos, retain=retain, timeout=publish_timeout))
        for topic, payload, qos, retain in publications
    ]
    batch: asyncio.Future[list[None]] = asyncio.gather(*tasks)
    try:
        done, _ = await asyncio.wait((batch,) if watcher is None else (batch, watcher),
                                     return_when=asyncio.FIRST_COMPLETED)
        if batch not in done:
            assert watcher is not None
            watcher.result()
            raise aiomqtt.MqttError("disconnected while publishing")
        batch.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not batch.done():
            batch.cancel()
        await asyncio.gather(batch, return_exceptions=True)


async def watch(client: aiomqtt.Client, on_message: Callable[[aiomqtt.Message], None]) -> None:
    """Hand every message received to `on_message`; ends (raising MqttError) when the connection drops."""
    async for message in client.messages:
        on_message(message)
