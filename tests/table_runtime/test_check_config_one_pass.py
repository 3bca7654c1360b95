"""`check-config` reports every problem of a file in one pass: configs/pi.toml on a machine with nothing of a Pi
(no secret files under /etc/table-runtime, no GPIO chip, the metrics library hidden) gives its four unreadable
files, then the GPIO chip, then the metrics extra, all at once, not one stage after another fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PI = ROOT / "configs" / "pi.toml"


@pytest.mark.skipif(Path("/etc/table-runtime").exists() or any(Path("/dev").glob("gpiochip*")),
                    reason="this machine has a table's files or a GPIO chip: not the case tested")
def test_configs_pi_toml_off_a_pi_gives_every_problem_at_once(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['prometheus_client'] = None\n",
                                               encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "table_runtime", "check-config", str(PI)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{PI}: 6 problems", done.stdout
    keys = [line.split(":")[0].strip() for line in lines[1:]]
    assert keys == ["mqtt.ca_file", "mqtt.password_file", "display.supervisor_pin_file", "display.pit_token_file",
                    "devices.gpio_chip", "metrics"], done.stdout
    assert "no GPIO chip labelled 'pinctrl-rp1'" in lines[5]
    assert "prometheus_client is not installed" in lines[6]
    assert "Traceback" not in done.stderr
