"""Settings for the whole suite.

Hypothesis: no per-example deadline (CI shares two cores with browsers, brokers
and ptys, so wall-clock deadlines only measure the machine's load); under CI
the examples are derandomized, so a run is repeatable and a red build is a real
regression, while local runs keep exploring new examples.

Order: the tests marked ``slow`` (a few seconds or more each: a demo killed and
restarted, the compiled build) run first. ``scripts/test`` hands the tests to its
two workers with pytest-xdist's work stealing, so a long test started late can
no longer leave one worker idle while the other finishes it (tests/README.md,
"The suite").
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("local", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "local")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, each group in its collection order (the same on every xdist worker)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
