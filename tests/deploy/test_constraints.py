"""constraints.txt pins, with ==, every dependency pyproject.toml names (extras too), inside its bounds.

CI (.ci/run) and the Pi (docs/deployment.md) install with ``pip install -c constraints.txt``: a Pi
installed next month gets the code CI tested. scripts/update-constraints rewrites the file.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "constraints.txt"


def pinned() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, raw in enumerate(CONSTRAINTS.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)", line)
        assert match is not None, f"constraints.txt line {number}: not NAME==VERSION: {raw!r}"
        name = canonicalize_name(match.group(1))
        assert name not in pins, f"constraints.txt line {number}: {name} pinned twice"
        pins[name] = Version(match.group(2))
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(text) for text in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        requirements.extend(Requirement(text) for text in extra)
    return requirements


def test_every_dependency_of_pyproject_is_pinned_within_its_bounds() -> None:
    pins = pinned()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not pinned in constraints.txt (scripts/update-constraints)"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"constraints.txt pins {name}=={pins[name]}, outside pyproject's {requirement}"


def test_runtime_dependencies_have_an_upper_bound() -> None:
    """A next major version may break us: the runtime's own dependencies stop before it."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [*project["dependencies"], *project["optional-dependencies"]["metrics"]]
    for text in runtime:
        requirement = Requirement(text)
        assert any(spec.operator in ("<", "<=", "==", "~=") for spec in requirement.specifier), text


def test_gpiozero_is_a_release_known_to_work_on_a_pi_5() -> None:
    """2.0.1 ignores LGPIOFactory(chip=...); 2.0.1.post1/post2 fall back to RPi.GPIO on a Pi 5."""
    gpiozero = next(r for r in declared() if canonicalize_name(r.name) == "gpiozero")
    for broken in ("2.0", "2.0.1", "2.0.1.post1", "2.0.1.post2"):
        assert not gpiozero.specifier.contains(broken), f"gpiozero {broken} is allowed: {gpiozero}"
    assert gpiozero.specifier.contains("2.0.1.post3")
    assert pinned()["gpiozero"] >= Version("2.0.1.post3")


def test_ci_and_the_deployment_guide_install_with_the_constraints() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"(?m)^pip install .*-c constraints\.txt .*-e '\.\[test\]'", ci), ci
    guide = (REPO / "docs" / "deployment.md").read_text(encoding="utf-8")
    assert re.search(r"pip install -c /opt/table-runtime/src/constraints\.txt", guide)
    assert "scripts/update-constraints" in guide
