"""Settings for the whole suite.

Hypothesis: no per-example deadline (CI shares two cores with browsers, brokers
and ptys, so wall-clock deadlines only measure the machine's load); under CI
the examples are derandomized, so a run is repeatable and a red build is a real
regression, while local runs keep exploring new examples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("local", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "local")
