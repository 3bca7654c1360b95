"""The `[release]` section (config/release.py): off when absent, the public key checked when it is read, every bad
value named by its key; a configured table gets its program watch (runtime/assembly.py `program_watch`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_runtime.config import ConfigInvalidError, load_config
from table_runtime.journal import Journal
from table_runtime.runtime.assembly import program_watch
from table_runtime.runtime.controller import TableController
from tests.deploy.support import demo_table
from tests.release.installation import signed_installation


def problems(path: Path) -> dict[str, str]:
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(path, environ={})
    return {problem.key: problem.message for problem in caught.value.problems}


def test_no_section_no_check_and_a_section_with_its_key_and_hours(tmp_path: Path) -> None:
    absent = load_config(demo_table(tmp_path), environ={})
    assert not absent.release.enabled and absent.release.check_hours is None
    _, key = signed_installation(tmp_path / "release")
    config = load_config(demo_table(tmp_path, extra=f'\n[release]\npublic_key_file = "{key}"\ncheck_hours = 8\n'),
                         environ={})
    assert config.release.public_key == key and config.release.check_hours == 8.0
    with Journal.open(config.journal_path) as journal:
        controller = TableController(table_id=config.table_id, rules=config.rules, limits=config.limits,
                                     journal=journal, clock=lambda: 1.0)
        watch = program_watch(config, controller)
        assert watch is not None and watch.public_key == key and watch.every_s == 8 * 3600.0
        assert program_watch(absent, controller) is None


def test_every_bad_value_is_named_by_its_key(tmp_path: Path) -> None:
    not_a_key = tmp_path / "not-a-key.pub"
    not_a_key.write_text("hello\n", encoding="utf-8")
    found = problems(demo_table(tmp_path, extra=f'\n[release]\npublic_key_file = "{not_a_key}"\ncheck_hours = 0\n'
                                               'hours = 3\n'))
    assert "not a PEM public key" in found["release.public_key_file"]
    assert "more than 0" in found["release.check_hours"]
    assert "unknown key" in found["release.hours"]
    missing = problems(demo_table(tmp_path, extra='\n[release]\npublic_key_file = "nowhere.pub"\n'))
    assert "no such file" in missing["release.public_key_file"]
    alone = problems(demo_table(tmp_path, extra="\n[release]\ncheck_hours = 4\n"))
    assert "nothing to check" in alone["release.check_hours"]
