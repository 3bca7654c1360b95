"""The staff registry: a CSV import, all or nothing; badges kept as keyed hashes, PINs as Argon2id hashes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from table_runtime.core.staff_roles import StaffRole
from table_runtime.staff.registry import StaffError, StaffImportError, StaffRegistry, badge_hash

SECRET = b"casino-secret-of-16+bytes"
BADGE = "4242424242"
CSV = ("employee_id,name,roles,approval,status,badge,pin\n"
       f"E1,Marie Dupont,dealer,R321-0001,,{BADGE},1357\n"
       "E2,Paul Martin,supervisor|dealer,R321-0002,active,99887766,2468\n"
       "E3,Anne Roux,surveillance,,suspended,,\n")


def test_an_import_keeps_every_field_and_no_badge_or_pin(tmp_path: Path) -> None:
    path = tmp_path / "staff.sqlite"
    with StaffRegistry(path, secret=SECRET) as registry:
        report = registry.import_text(CSV)
        snapshot = registry.snapshot()
    assert (report.added, report.updated) == (3, 0)
    marie = snapshot.get("E1")
    assert marie is not None and marie.name == "Marie Dupont" and marie.roles == {StaffRole.DEALER}
    assert marie.approval == "R321-0001" and marie.active and marie.deals and not marie.supervises
    assert snapshot.badge(SECRET, BADGE) == marie and snapshot.badge(SECRET, "1") is None
    assert marie.pin_matches("1357") and not marie.pin_matches("1358")
    assert marie.pin_hash is not None and marie.pin_hash.startswith("$argon2id$")
    paul = snapshot.get("E2")
    assert paul is not None and paul.may(StaffRole.SUPERVISOR) and paul.may(StaffRole.DEALER)
    anne = snapshot.get("E3")
    assert anne is not None and not anne.active and not anne.may(StaffRole.SURVEILLANCE)
    data = b"".join(part.read_bytes() for part in tmp_path.iterdir())
    assert BADGE.encode() not in data and badge_hash(SECRET, BADGE).encode() in data
    # A PIN of 4 digits could sit in a hash's characters by chance: the columns are read instead.
    with sqlite3.connect(path) as db:
        cells = [str(cell) for row in db.execute("SELECT * FROM employees") for cell in row]
    assert not {BADGE, "99887766", "1357", "2468"} & set(cells)
    assert sum(cell.startswith("$argon2id$") for cell in cells) == 2


@pytest.mark.parametrize(("line", "column", "shown"), [
    ("E9,X,juggler,R1,,,", "roles", "juggler"),
    ("E9,X,dealer,,,,", "approval", "CSI R.321-31"),
    ("E9,X,dealer,R1,,,12ab", "pin", "not a PIN"),
    ("bad id!,X,dealer,R1,,,", "employee_id", "not an employee id"),
])
def test_a_bad_line_stops_the_import_naming_it_and_never_the_pin(line: str, column: str, shown: str) -> None:
    with StaffRegistry(":memory:", secret=SECRET) as registry:
        with pytest.raises(StaffImportError) as raised:
            registry.import_text(CSV + line + "\n")
        assert len(registry) == 0  # all or nothing
    assert (raised.value.line, raised.value.column) == (5, column) and shown in str(raised.value)
    assert "12ab" not in str(raised.value)


def test_a_badge_without_the_secret_or_twice_is_refused() -> None:
    with StaffRegistry(":memory:") as registry, pytest.raises(StaffImportError, match="secret"):
        registry.import_text(CSV)
    twice = CSV + f"E4,Luc Bon,dealer,R321-0004,,{BADGE},\n"
    with StaffRegistry(":memory:", secret=SECRET) as registry, pytest.raises(StaffImportError, match="line 2"):
        registry.import_text(twice)


def test_a_second_import_updates_and_keeps_the_badge_and_pin_it_does_not_give() -> None:
    with StaffRegistry(":memory:", secret=SECRET) as registry:
        registry.import_text(CSV)
        report = registry.import_text("employee_id;name;roles;approval;status\nE1;Marie Dupont-Roy;dealer;R321-0001;"
                                      "suspended\n")
        marie = registry.get("E1")
        assert (report.added, report.updated) == (0, 1)
        assert marie is not None and marie.name == "Marie Dupont-Roy" and not marie.active
        assert marie.pin_matches("1357") and registry.snapshot().badge(SECRET, BADGE) == marie
        assert registry.set_status("E1", "active").active
        assert registry.set_pin("E1", "8642").pin_matches("8642")
        with pytest.raises(StaffError, match="not in the staff registry"):
            registry.set_status("E404", "active")


def _cli(*args: str, db: Path, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table_runtime", "staff", "--db", str(db), *args], input=stdin,
                          capture_output=True, text=True, timeout=60, env=env, check=False)


@pytest.mark.slow  # five CLI subprocesses, each a start-up and an Argon2id hash or two
def test_the_cli_imports_lists_suspends_and_sets_a_pin(tmp_path: Path) -> None:
    import os
    db = tmp_path / "staff.sqlite"
    source = tmp_path / "staff.csv"
    source.write_text(CSV)
    env = {**os.environ, "TABLE_PLAYER_CARD_SECRET": SECRET.decode()}
    imported = _cli("import", str(source), db=db, env=env)
    assert imported.returncode == 0 and "3 added" in imported.stdout
    assert _cli("set-status", "E1", "suspended", db=db).stdout.strip() == "E1 (Marie Dupont): suspended"
    assert _cli("set-pin", "E3", db=db, stdin="7777\n").returncode == 0
    listed = _cli("list", db=db)
    assert "Marie Dupont" in listed.stdout and "suspended" in listed.stdout and BADGE not in listed.stdout
    refused = _cli("set-status", "E404", "active", db=db)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "E404" in refused.stderr
    no_db = _cli("list", db=tmp_path / "none.sqlite")
    assert no_db.returncode == 2 and "no staff registry" in no_db.stderr


def test_the_staff_section_names_the_registry_and_is_off_by_default(tmp_path: Path) -> None:
    from table_runtime.config import load_config
    from table_runtime.config.model import ConfigInvalidError
    demo = Path(__file__).resolve().parents[3] / "configs" / "demo.toml"
    text = demo.read_text().replace('data_dir = "~/.local/share/table-runtime-demo"', 'data_dir = "data"', 1)
    plain = tmp_path / "plain.toml"
    plain.write_text(text)
    assert not load_config(plain).staff.enabled
    with_staff = tmp_path / "staff.toml"
    with_staff.write_text(text + '\n[staff]\nregistry = "staff.sqlite"\nbadge_seconds = 20\n')
    staff = load_config(with_staff).staff
    assert staff.registry == tmp_path / "staff.sqlite" and staff.badge_seconds == 20.0
    with_staff.write_text(text + '\n[staff]\nregistry = "staff.sqlite"\nbadge_seconds = 0\nbadges = 1\n')
    with pytest.raises(ConfigInvalidError) as raised:
        load_config(with_staff)
    assert {problem.key for problem in raised.value.problems} == {"staff.badge_seconds", "staff.badges"}


def test_check_config_names_a_staff_registry_that_is_none(tmp_path: Path) -> None:
    from table_runtime.config import load_config
    from table_runtime.runtime.assembly import preflight
    demo = Path(__file__).resolve().parents[3] / "configs" / "demo.toml"
    text = demo.read_text().replace('data_dir = "~/.local/share/table-runtime-demo"', 'data_dir = "data"', 1)
    config_file = tmp_path / "staff.toml"
    config_file.write_text(text + '\n[staff]\nregistry = "staff.sqlite"\n')
    problems = preflight(load_config(config_file))
    assert [problem.key for problem in problems] == ["staff.registry"]
    assert "no staff registry here" in problems[0].message
    (tmp_path / "staff.sqlite").write_bytes(b"not a database, not at all" * 100)
    (problem,) = preflight(load_config(config_file))
    assert problem.key == "staff.registry" and "not a staff registry" in problem.message
    (tmp_path / "staff.sqlite").unlink()
    with StaffRegistry(tmp_path / "staff.sqlite", secret=SECRET) as registry:
        registry.import_text(CSV)
    assert preflight(load_config(config_file)) == []
