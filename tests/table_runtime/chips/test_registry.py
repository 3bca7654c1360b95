"""The chip registry and the `table-runtime chips` commands, on a CSV the casino would export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import ChipRegistry, RegisteredChip, RegistryError, RegistryImportError
from table_runtime.cli import main

EXPORT = """\
UID;Denomination;Casino_ID;Status;Serial;Issued on
E0:04:01:50:00:00:00:01;5,00;42;ACTIVE;A-0001;2026-01-02
E004015000000002;25;42;active;A-0002;2026-01-02
e004015000000003;1.000,00;42;Void;A-0003;2026-01-02
E004015000000004;0,50;42;;A-0004;2026-01-02
E004015000000005;100;42;stolen;A-0005;2026-01-02
"""


def test_import_reads_a_semicolon_export_with_decimal_commas(tmp_path: Path) -> None:
    source = tmp_path / "export.csv"
    source.write_text(EXPORT, encoding="utf-8")
    with ChipRegistry(tmp_path / "chips.sqlite") as registry:
        report = registry.import_csv(source)
        assert (report.added, report.updated) == (5, 0)
        assert registry.get("E004015000000001") == RegisteredChip(
            uid="E004015000000001", denomination_cents=500, casino_id=42, status="active")
        snapshot = registry.snapshot()
        assert {uid: chip.denomination_cents for uid, chip in snapshot.items()} == {
            "E004015000000001": 500, "E004015000000002": 2500, "E004015000000003": 100_000,
            "E004015000000004": 50, "E004015000000005": 10_000}
        assert [chip.status for chip in snapshot.values()] == ["active", "active", "void", "active", "stolen"]


def test_a_comma_export_in_cents_updates_known_chips(tmp_path: Path) -> None:
    with ChipRegistry(tmp_path / "chips.sqlite") as registry:
        registry.import_text("uid,denomination_cents,casino_id\nE004015000000001,500,42\n")
        report = registry.import_text("uid,denomination_cents,casino_id,status\n"
                                      "E004015000000001,500,42,void\nE004015000000009,2500,42,active\n")
        assert (report.added, report.updated) == (1, 1)
        chip = registry.get("E004015000000001")
        assert chip is not None and chip.status == "void"


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    ("uid;denomination;casino_id\nE0040150000000;5;42\n", 2, "uid", "16-hex-digit"),
    ("uid;denomination;casino_id\nE004015000000001;5,005;42\n", 2, "denomination", "whole cents"),
    ("uid;denomination;casino_id\nE004015000000001;cinq;42\n", 2, "denomination", "not an amount"),
    ("uid,denomination,casino_id,status\nE004015000000001,5,42,lost\n", 2, "status", "not one of"),
    ("uid,denomination,casino_id\nE004015000000001,5,70000\n", 2, "casino_id", "0..65535"),
    ("uid,denomination\nE004015000000001,5\n", 1, "casino_id", "missing column"),
    ("uid,denomination,casino_id\nE004015000000001,5,1\nE004015000000001,5,1\n", 3, "uid", "already on line 2"),
    ("uid,denomination,casino_id\nE004015000000001,5\n", 2, "casino_id", "2 columns"),
])
def test_a_bad_line_names_line_and_column_and_imports_nothing(text: str, line: int, column: str,
                                                               words: str) -> None:
    with ChipRegistry(":memory:") as registry:
        registry.import_text("uid,denomination,casino_id\nE0040150000000FF,5,42\n")
        with pytest.raises(RegistryImportError, match=words) as caught:
            registry.import_text(text)
        assert (caught.value.line, caught.value.column) == (line, column)
        assert isinstance(caught.value, ValueError)
        assert [chip.uid for chip in registry.chips()] == ["E0040150000000FF"]


def test_set_status_needs_a_known_chip_and_a_known_status() -> None:
    with ChipRegistry(":memory:") as registry:
        registry.import_text("uid,denomination,casino_id\nE004015000000001,5,42\n")
        assert registry.set_status("e0-04-01-50-00-00-00-01", "STOLEN").status == "stolen"
        with pytest.raises(RegistryError, match="not in the registry"):
            registry.set_status("E004015000000002", "void")
        with pytest.raises(RegistryError, match="not one of"):
            registry.set_status("E004015000000001", "lost")


def test_cli_import_list_and_set_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    issuer = ChipIssuer(42, seed=3)
    chips = issuer.stack(13_600)
    issuer.mark(chips[0].uid, "stolen")
    export = tmp_path / "chips-export.csv"
    export.write_text(issuer.csv(), encoding="utf-8")
    db = str(tmp_path / "registry.sqlite")

    assert main(["chips", "--db", db, "import", str(export)]) == 0
    assert f"{len(chips)} added, 0 updated" in capsys.readouterr().out

    assert main(["chips", "--db", db, "list"]) == 0
    listing = capsys.readouterr().out
    active = sum(chip.denomination_cents or 0 for chip in chips[1:])  # the stolen chip is worth nothing
    assert f"{len(chips)} chips; {len(chips) - 1} active worth {active // 100}.{active % 100:02d} " \
           "(1 void or stolen, not counted)" in listing
    assert f"{chips[0].uid}" in listing and "stolen" in listing

    assert main(["chips", "--db", db, "set-status", chips[1].uid, "VOID"]) == 0
    assert capsys.readouterr().out.startswith(f"{chips[1].uid}: void")

    assert main(["chips", "--db", db, "list", "--status", "void", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows == [{"uid": chips[1].uid, "denomination_cents": chips[1].denomination_cents, "casino_id": 42,
                     "status": "void"}]

    assert main(["chips", "--db", db, "set-status", "E0040000DEADBEEF", "void"]) == 2
    assert "not in the registry" in capsys.readouterr().err


def test_cli_default_db_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TABLE_CHIPS_DB", str(tmp_path / "env.sqlite"))
    export = tmp_path / "export.csv"
    export.write_text("uid,denomination,casino_id\nE004015000000001,5.00,42\n", encoding="utf-8")
    assert main(["chips", "import", str(export)]) == 0
    assert str(tmp_path / "env.sqlite") in capsys.readouterr().out
    assert main(["chips", "import", str(tmp_path / "missing.csv")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_csv_file_can_serve_as_a_read_only_registry(tmp_path: Path) -> None:
    export = tmp_path / "chips.csv"
    export.write_text(EXPORT, encoding="utf-8")
    registry = ChipRegistry.from_csv(export)
    assert len(registry) == 5
    registry.close()


def test_cli_import_keeps_one_casino_per_registry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "registry.sqlite")
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    ours.write_text(_export(42, 2), encoding="utf-8")
    theirs.write_text(_export(7, 1, offset=5), encoding="utf-8")
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(_export(42, 1) + _export(7, 1, offset=5).split("\n", 1)[1], encoding="utf-8")

    assert main(["chips", "--db", db, "import", str(mixed)]) == 2  # a file of two casinos, into a new registry
    err = capsys.readouterr().err.splitlines()
    assert err == [f"table-runtime: error: {mixed}: line 3, column 'casino_id': casino 7, not line 2's casino 42: "
                   "a table accepts one casino's chips; import another casino's file with --casino 7"]
    assert not Path(db).exists()  # nothing created by a refused first import

    assert main(["chips", "--db", db, "import", str(ours)]) == 0
    assert "(created)" in capsys.readouterr().out
    assert main(["chips", "--db", db, "import", str(theirs)]) == 2
    assert "casino 7, not the registry's casino 42" in capsys.readouterr().err
    assert main(["chips", "--db", db, "import", "--casino", "7", str(theirs)]) == 0  # on purpose
    capsys.readouterr()
    assert main(["chips", "--db", db, "import", str(ours)]) == 2  # now ambiguous: which casino is this file?
    assert "holds chips of casinos [7, 42]: name the casino" in capsys.readouterr().err
    with ChipRegistry(db) as registry:
        assert registry.casinos == (7, 42) and len(registry) == 3


def _export(casino: int, count: int, *, offset: int = 0) -> str:
    rows = [f"E0040150000000{offset + index:02X},5.00,{casino}" for index in range(count)]
    return "uid,denomination,casino_id\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("action", [["list"], ["set-status", "E004015000000001", "void"]])
def test_cli_refuses_a_registry_path_that_holds_none(action: list[str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "typo" / "chips.sqlite"
    assert main(["chips", "--db", str(missing), *action]) == 2
    assert capsys.readouterr().err == (f"table-runtime: error: {missing}: no chip registry here; create it with "
                                       f"table-runtime chips --db {missing} import FILE\n")
    assert not missing.exists() and not missing.parent.exists()  # no empty registry made silently
    garbage = tmp_path / "notes.txt"
    garbage.write_text("not a database at all, just some words " * 50, encoding="utf-8")
    assert main(["chips", "--db", str(garbage), *action]) == 2
    assert capsys.readouterr().err == f"table-runtime: error: {garbage}: not a chip registry: file is not a database\n"
