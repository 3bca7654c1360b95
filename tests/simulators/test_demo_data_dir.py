"""The demo's data: without --data-dir a fresh directory of the user's alone, gone when the demo ends; with it, kept.
And the live text view never prints the line before again (a row the line does not show changed the seq only)."""

from __future__ import annotations

import itertools
import json
import stat
from pathlib import Path

import pytest

from table_runtime.cli import main


def test_the_default_data_directory_is_private_and_removed_at_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--fast", "--rounds", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["data_kept"] is False
    assert not Path(summary["data_dir"]).exists()
    assert main(["demo", "--fast", "--rounds", "1"]) == 0
    assert "data removed (--data-dir DIR keeps it)" in capsys.readouterr().out


def test_a_given_data_directory_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "demo"
    assert main(["demo", "--fast", "--rounds", "3", "--data-dir", str(data), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["data_kept"] is True and (data / "journal.db").exists()


def test_the_fresh_directory_is_the_users_alone(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import tempfile

    made: list[Path] = []
    real = tempfile.mkdtemp

    def watch(*args: object, **kwargs: object) -> str:
        path = real(*args, **kwargs)  # type: ignore[call-overload]
        made.append(Path(path))
        assert stat.S_IMODE(Path(path).stat().st_mode) == 0o700
        return str(path)

    monkeypatch.setattr(tempfile, "mkdtemp", watch)
    assert main(["demo", "--fast", "--rounds", "1", "--json"]) == 0
    assert made and not made[0].exists()
    capsys.readouterr()


@pytest.mark.timeout(240)
def test_no_terminal_line_repeats_the_line_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rounds", "6", "--pace", "0", "--http", "off", "--seed", "11", "--error-rate", "0.3",
                 "--devices-in-process", "--data-dir", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("round ")]
    assert len(lines) > 30
    repeated = [line for before, line in itertools.pairwise(lines) if line == before]
    assert repeated == []
