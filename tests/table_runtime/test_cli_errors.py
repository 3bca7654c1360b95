"""Every command that reads a file, on every kind of bad file: exit 2, one line on stderr naming the file
(and the line of a bad byte), never a traceback. The entry points' shared runner (`run_handler`) is the one
place that turns the error into that line, so the grid runs each program's own `main(argv)`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from simulators.bench import cli as bench_cli
from simulators.cli import main as sim_main
from table_runtime.cli import main as runtime_main
from table_runtime.version import installed_version

NOT_UTF8 = 'table_id = "T1"\n# r\u00e8gles de la maison\n'.encode("cp1252")  # é as 0xE8 on line 2

BAD_FILES: dict[str, Callable[[Path], Path]] = {
    "missing": lambda tmp: tmp / "missing.toml",
    "directory": lambda tmp: _mkdir(tmp / "folder.toml"),
    "not-utf8": lambda tmp: _write(tmp / "latin.toml", NOT_UTF8),
    "garbage": lambda tmp: _write(tmp / "garbage.toml", b"[[[ this is : not ] toml\n\x00\x01"),
    "empty": lambda tmp: _write(tmp / "empty.toml", b""),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _mkdir(path: Path) -> Path:
    path.mkdir()
    return path


Main = Callable[[Sequence[str]], int]
COMMANDS: dict[str, tuple[Main, Callable[[Path, Path], list[str]]]] = {
    "check-config": (runtime_main, lambda file, tmp: ["check-config", str(file)]),
    "run": (runtime_main, lambda file, tmp: ["run", "--config", str(file)]),
    "chips import": (runtime_main, lambda file, tmp: ["chips", "--db", str(tmp / "chips.sqlite"), "import",
                                                      str(file)]),
    "rules --file": (runtime_main, lambda file, tmp: ["rules", "--file", str(file)]),
    "house-edge --rules": (runtime_main, lambda file, tmp: ["house-edge", "--rules", str(file)]),
    "strategy --rules": (runtime_main, lambda file, tmp: ["strategy", "--rules", str(file)]),
    "table-bench run": (bench_cli.main, lambda file, tmp: ["run", str(file.with_suffix(".yaml"))]),
    "table-bench --devices": (bench_cli.main, lambda file, tmp: ["run", "--devices", str(file), "x.yaml"]),
    "table-sim shoe --stack": (sim_main, lambda file, tmp: ["shoe", "--link", str(tmp / "ttySHOE"), "--stack",
                                                            str(file)]),
}


@pytest.mark.parametrize("bad", sorted(BAD_FILES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_bad_file_is_one_line_naming_it(command: str, bad: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    main, argv = COMMANDS[command]
    file = BAD_FILES[bad](tmp_path)
    if command == "table-bench run" and bad != "missing":  # a scenario file is .yaml
        file = file.rename(file.with_suffix(".yaml")) if bad != "directory" else file
    arguments = argv(file, tmp_path)
    named = Path(arguments[-1]) if command != "table-bench --devices" else file
    assert main(arguments) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    assert str(named) in lines[0], lines[0]
    if bad == "not-utf8" and command != "chips import":  # a chip export is read as Windows-1252 (below)
        assert "line 2, column 4: byte 0xe8 is not UTF-8" in lines[0]
        assert f"iconv -f WINDOWS-1252 -t UTF-8 {named}" in lines[0]
    if command == "chips import":
        assert not (tmp_path / "chips.sqlite").exists()  # a refused first import leaves no registry


def test_a_spreadsheet_export_in_windows_1252_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "jetons.csv"
    text = ("uid;valeur;denomination;casino_id;statut\n"
            "E0:04:01:50:12:34:56:78;Jeton \u00e0 la fa\u00e7on;25,00 \u20ac;7;actif\u00e9\n")
    export.write_bytes(text.replace("actif\u00e9", "active").encode("cp1252"))
    db = tmp_path / "chips.sqlite"
    assert runtime_main(["chips", "--db", str(db), "import", str(export)]) == 0
    assert "(read as cp1252: not UTF-8): 1 added" in capsys.readouterr().out
    assert runtime_main(["chips", "--db", str(db), "list", "--json"]) == 0
    assert '"denomination_cents": 2500' in capsys.readouterr().out


def test_other_entry_points_and_os_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["shoe", "--link", str(tmp_path / "no" / "such" / "dir" / "ttySHOE")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("table-sim: error: ") and "ttySHOE" in err[0], err
    empty = tmp_path / "scenarios"
    empty.mkdir()
    assert bench_cli.main(["run", str(empty)]) == 2
    assert f"{empty}: no scenario files" in capsys.readouterr().err


@pytest.mark.parametrize("program", ["table-runtime", "table-sim", "table-bench"])
def test_version_of_each_entry_point(program: str) -> None:
    script = Path(sys.executable).with_name(program)  # installed beside the interpreter by pip install -e .
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"}, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(installed_version())
    assert installed_version() != "0+unknown"  # the tests run on an installed tree (pip install -e .)


@pytest.mark.parametrize("last", ["-3", "0"])
def test_recall_refuses_a_number_of_rounds_below_one(last: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        runtime_main(["recall", "--data-dir", str(tmp_path), "--last", last])
    assert exited.value.code == 2
    assert f"argument --last: {last}: a number of rounds, 1 or more" in capsys.readouterr().err


def test_feed_publish_refuses_a_journal_that_is_not_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "typo.db"
    assert runtime_main(["feed", "publish", "--url", "mqtt://127.0.0.1:1", "--journal", str(missing),
                         "--table-id", "T1"]) == 2
    assert capsys.readouterr().err == f"table-runtime: error: {missing}: no journal here\n"
    assert not missing.exists()  # no empty journal made and published


def test_a_password_file_that_is_not_utf8_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = _write(tmp_path / "password", "s\u00e9same\n".encode("cp1252"))
    assert runtime_main(["feed", "tail", "--url", "mqtt://me@127.0.0.1:1", "--password-file", str(secret)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"table-runtime: error: feed.password_file: the password file {secret}: line 1, column 2: byte "
                   f"0xe9 is not UTF-8; convert the file, e.g. iconv -f WINDOWS-1252 -t UTF-8 {secret} > "
                   f"{tmp_path / 'password-utf8'}"]
