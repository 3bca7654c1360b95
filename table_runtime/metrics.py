"""The Prometheus endpoint: what the operator's dashboards read from a running table.

Needs the optional extra ``metrics`` (prometheus_client). ``[metrics] host, port``
in the table's configuration turns it on; it listens on its own address (not
the display's), ``GET /metrics`` in Prometheus' text format. Every value is read
from the app at scrape time, on the event loop, from the committed view (what the
journal holds, even while a step is being journaled), so it is what the display
would show at that moment:

| metric | what |
|---|---|
| ``table_device_online{device}`` | 1 when the shoe / chips / broker is online (broker only with a feed) |
| ``table_alarms_open{kind}`` | alarms raised and not yet acknowledged, by kind |
| ``table_journal_seq`` | the journal's last seq |
| ``table_feed_published_seq``, ``table_feed_backlog_rows`` | the feed's cursor; journal head minus it |
| ``table_broker_connected`` | 1 while the feed holds a broker connection |
| ``table_reconnects_total{device}`` | times a device (or the broker) came back after it had been online |
| ``table_journal_commit_seconds`` | histogram: one append, BEGIN to fsynced COMMIT |
| ``table_clock_synchronised`` | 1 synchronised, 0 not (rows' times not trusted), absent when unknown |
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from table_runtime.runtime.app import TableApp

COMMIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)  # an SD card's fsync is slow


class TableMetrics(Collector):
    """The metrics of one `TableApp`; owns its own registry (nothing global), and the HTTP endpoint."""

    def __init__(self, app: TableApp, *, clock_synchronised: Callable[[], bool | None] = lambda: None) -> None:
        self.app = app
        self._clock_synchronised = clock_synchronised
        self.registry = CollectorRegistry(auto_describe=True)
        self.commit_seconds = Histogram("table_journal_commit_seconds", "One journal append, BEGIN to fsynced COMMIT",
                                        buckets=COMMIT_BUCKETS, registry=self.registry)
        self._seen_online: set[str] = set()
        self._reconnects: dict[str, int] = {}
        self._last: dict[str, str] = {}
        app.controller.journal.commit_observer = self.commit_seconds.observe
        app.controller.subscribe(self._follow_devices)
        self._follow_devices()
        self.registry.register(self)  # last: registering describes, which collects

    # ------------------------------------------------------------------ state

    def _follow_devices(self) -> None:
        """After every change: a device that goes online again, having been online before, reconnected."""
        for device, status in self.app.controller.devices.items():
            if status == "online" and self._last.get(device) != "online":
                if device in self._seen_online:
                    self._reconnects[device] = self._reconnects.get(device, 0) + 1
                self._seen_online.add(device)
            self._last[device] = status

    def describe(self) -> Iterator[Metric]:
        return self.collect()

    def collect(self) -> Iterator[Metric]:
        controller = self.app.controller
        view = controller.committed
        committed_devices: dict[str, str] = view.snapshot["devices"]
        feed = self.app.feed
        devices = GaugeMetricFamily("table_device_online", "1 when the device is online", labels=["device"])
        for device, status in sorted(committed_devices.items()):
            if status != "disabled":
                devices.add_metric([device], 1.0 if status == "online" else 0.0)
        yield devices
        alarms = GaugeMetricFamily("table_alarms_open", "Alarms raised and not yet acknowledged", labels=["kind"])
        kinds: dict[str, int] = {}
        for kind in view.alarm_kinds:
            kinds[kind] = kinds.get(kind, 0) + 1
        for kind, count in sorted(kinds.items()):
            alarms.add_metric([kind], float(count))
        yield alarms
        head = controller.last_seq  # never waits for a commit in flight
        yield GaugeMetricFamily("table_journal_seq", "The journal's last seq", value=float(head))
        reconnects = dict(self._reconnects)
        if feed is not None:
            reconnects["broker"] = max(0, feed.connections - 1)
            yield GaugeMetricFamily("table_feed_published_seq", "The last seq the broker acknowledged",
                                    value=float(feed.cursor))
            yield GaugeMetricFamily("table_feed_backlog_rows", "Journal rows not yet acknowledged by the broker",
                                    value=float(max(0, head - feed.cursor)))
            yield GaugeMetricFamily("table_broker_connected", "1 while the feed is connected to its broker",
                                    value=1.0 if feed.connected else 0.0)
        counter = CounterMetricFamily("table_reconnects", "Times a device or the broker came back after being online",
                                      labels=["device"])
        listed = {device for device, status in committed_devices.items() if status != "disabled"} | set(reconnects)
        for device in sorted(listed):
            counter.add_metric([device], float(reconnects.get(device, 0)))
        yield counter
        synchronised = self._clock_synchronised()
        if synchronised is not None:
            yield GaugeMetricFamily("table_clock_synchronised", "1 when NTP has synchronised the clock",
                                    value=1.0 if synchronised else 0.0)

    def exposition(self) -> bytes:
        """The text a scrape gets."""
        return generate_latest(self.registry)

    # ------------------------------------------------------------------- HTTP

    @contextlib.asynccontextmanager
    async def serving(self, host: str, port: int) -> AsyncIterator[int]:
        """Serve ``GET /metrics`` on host:port (0: any free port) while inside; yields the bound port."""

        async def metrics(request: web.Request) -> web.Response:
            response = web.Response(body=self.exposition())
            response.headers["Content-Type"] = CONTENT_TYPE_LATEST
            return response

        application = web.Application()
        application.router.add_get("/metrics", metrics)
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        listener = socket.create_server((host, port), family=family)  # bound here, so port 0 tells its number
        runner = web.AppRunner(application, access_log=None)
        try:
            await runner.setup()
            await web.SockSite(runner, listener).start()
            yield int(listener.getsockname()[1])
        finally:
            await runner.cleanup()
            listener.close()
