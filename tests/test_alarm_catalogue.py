"""docs/alarms.md lists exactly the alarm kinds the code can raise, each under the source that raises it.

The kinds are read from the source with `ast` (never by matching text). A kind is named either by
reference, `AlarmKind.NAME` (table_runtime/game/alarm_kinds.py, the one definition of the kinds), or,
only in the modules of `LITERAL_KIND_MODULES`, as a string literal. It is read from:

- the `kind=` keyword of every `Alarm(...)` / `ChipAlarm(...)` call;
- the members of `ChipProblemKind` (table_runtime/chips/integrity.py), whose values the core's
  `refused_chip` passes on as `Alarm(kind=chip.refused, ...)`;
- the first positional argument of every `security_alarm(...)` call.

A construction whose kind is not a literal must be one of `FORWARDERS` below (each passes on a kind
that one of the patterns above already reads); any other one fails the test, as does a call with a
`kind=` keyword to a callee this test does not know, so that a new way of building an alarm is
looked at instead of silently missed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from table_runtime.core.alarm_ledger import SUPERVISOR_ACK_KINDS
from table_runtime.feed.messages import encode_payload
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.codec import to_dict
from table_runtime.game.events import Alarm
from table_runtime.journal import encode_body, entry_hash

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "alarms.md"
SOURCE_ROOTS = ("firmware_bridge", "drivers", "table_runtime")

ALARM_CONSTRUCTORS = frozenset({"Alarm", "ChipAlarm"})
SECURITY_ALARM = "security_alarm"
# Literal type aliases whose members are alarm kinds (the integrity check's kinds, passed on by the core's
# refused_chip as `Alarm(kind=chip.refused, ...)`).
KIND_LITERALS = frozenset({"ChipProblemKind"})
KIND_ENUM = "AlarmKind"
# The modules that still name their kinds as string literals (the round engine's, converted to AlarmKind after
# its split): every other module names a kind by reference. Shrink this set; never grow it.
LITERAL_KIND_MODULES: frozenset[str] = frozenset()  # every module names its kinds as AlarmKind members
# Callees that take a `kind=` keyword that is not an alarm's kind.
NOT_ALARMS = frozenset({
    "Payout",  # a payout's kind: original / double / split / insurance
    "ChipProblem",  # its kind is a ChipProblemKind, read from the Literal
    "WindowClosed",  # the window's kind: double / split / insurance
    "update",  # feed/messages.py: payload.update(kind=entry.kind, ...) copies a journal row's kind
    # core/journal_rows.py: an alarm's journal row, its kind the Alarm's it was built from or the row's as read.
    "AlarmRaised",
    "AlarmUpdated",
})
# (file, enclosing function) of the constructions whose kind is not a literal, and why that is safe:
FORWARDERS = frozenset({
    # Alarm(kind=chip.refused): a ChipProblemKind member (the edge's verdict), read from the Literal in integrity.py.
    ("table_runtime/core/chip_alarms.py", "refused_chip"),
    # Alarm(kind=kind) in refused_chips: kind = chips[0].refused, the same ChipProblemKind member.
    ("table_runtime/core/chip_alarms.py", "refused_chips"),
    # Alarm(kind=kind) in TableApp.security_alarm: the kinds are the literals of security_alarm(...) calls.
    ("table_runtime/runtime/app.py", "security_alarm"),
})


@dataclass(frozen=True, slots=True)
class Found:
    """What the source says: literal kinds per file, and the non-literal constructions (file, function)."""

    kinds: dict[str, set[str]]
    dynamic: set[tuple[str, str]]
    unknown_kind_callees: set[tuple[str, str]]
    literal_modules: set[str]  # the modules naming a kind by a string literal rather than by AlarmKind


def _found() -> Found:
    return Found(kinds={}, dynamic=set(), unknown_kind_callees=set(), literal_modules=set())


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _literal_str(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _enum_kind(node: ast.expr) -> str | None:
    """`AlarmKind.NAME` -> its value; a name that is no member reads as `AlarmKind.NAME?` (no kind, so it fails)."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == KIND_ENUM):
        return None
    member = AlarmKind.__members__.get(node.attr)
    return f"{KIND_ENUM}.{node.attr}?" if member is None else member.value


def _kind_of(node: ast.expr, filename: str, found: Found) -> str | None:
    """The kind `node` names, by reference or as a literal (noting the module), or None for an expression."""
    literal = _literal_str(node)
    if literal is not None:
        found.literal_modules.add(filename)
        return literal
    return _enum_kind(node)


def _literal_members(node: ast.expr) -> list[str]:
    """`Literal["a", AlarmKind.B]` (or `typing.Literal[...]`) -> ["a", "b"]."""
    if not isinstance(node, ast.Subscript):
        return []
    base = node.value
    name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
    if name != "Literal":
        return []
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    members = [_literal_str(element) or _enum_kind(element) for element in elements]
    assert all(member is not None for member in members), f"a member neither a string nor an AlarmKind in " \
                                                          f"{ast.unparse(node)}"
    return [member for member in members if member is not None]


def _walk_with_function(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """Every node with the name of the innermost function around it ("<module>" at the top)."""
    stack: list[tuple[ast.AST, str]] = [(tree, "<module>")]
    while stack:
        node, function = stack.pop()
        yield node, function
        inner = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def alarm_kinds_in(source: str, filename: str) -> Found:
    """The alarm kinds one module can raise (see the module docstring)."""
    found = _found()
    tree = ast.parse(source, filename=filename)
    kinds = found.kinds.setdefault(filename, set())
    for node, function in _walk_with_function(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(isinstance(t, ast.Name) and t.id in KIND_LITERALS for t in targets):
                members = _literal_members(node.value)
                assert members, f"{filename}: {ast.unparse(node)} is not a Literal of kinds"
                kinds.update(members)
                if any(_literal_str(element) is not None for element in ast.walk(node.value)
                       if isinstance(element, ast.expr)):
                    found.literal_modules.add(filename)
        if not isinstance(node, ast.Call):
            continue
        callee = _callee(node)
        if callee in ALARM_CONSTRUCTORS:
            kind = next((keyword.value for keyword in node.keywords if keyword.arg == "kind"), None)
            literal = None if kind is None else _kind_of(kind, filename, found)
            if literal is None:  # kind=<expression>, **fields, or no kind at all
                found.dynamic.add((filename, function))
            else:
                kinds.add(literal)
        elif callee == SECURITY_ALARM:
            first = node.args[0] if node.args else next(
                (keyword.value for keyword in node.keywords if keyword.arg == "kind"), None)
            literal = None if first is None else _kind_of(first, filename, found)
            if literal is None:
                found.dynamic.add((filename, function))
            else:
                kinds.add(literal)
        elif any(keyword.arg == "kind" for keyword in node.keywords) and callee not in NOT_ALARMS:
            found.unknown_kind_callees.add((filename, str(callee)))
    if not kinds:
        del found.kinds[filename]
    return found


def source_alarms() -> Found:
    total = _found()
    for root in SOURCE_ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            name = path.relative_to(REPO).as_posix()
            found = alarm_kinds_in(path.read_text(encoding="utf-8"), name)
            total.kinds.update(found.kinds)
            total.dynamic.update(found.dynamic)
            total.unknown_kind_callees.update(found.unknown_kind_callees)
            total.literal_modules.update(found.literal_modules)
    return total


def documented_kinds(markdown: str) -> dict[str, list[str]]:
    """First column of every table, by the source path named in backticks in its `## ` heading."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in markdown.splitlines():
        if line.startswith("#"):
            current = None
            if line.startswith("## ") and line.count("`") >= 2:
                current = sections.setdefault(line.split("`")[1], [])
            continue
        if current is None or not line.startswith("|"):
            continue
        first = line.split("|")[1].strip()
        if first == "kind" or set(first) <= set("-: "):
            continue  # the header row and its separator
        assert first.startswith("`") and first.endswith("`"), f"docs/alarms.md: a kind in backticks, not {first!r}"
        current.append(first.strip("`"))
    return sections


def _section_of(filename: str, sections: dict[str, list[str]]) -> str | None:
    matching = [path for path in sections if filename.startswith(path)]
    return max(matching, key=len) if matching else None


def test_every_alarm_kind_is_documented_under_its_source_and_nothing_else_is() -> None:
    found = source_alarms()
    sections = documented_kinds(DOC.read_text(encoding="utf-8"))

    raised: dict[str, set[str]] = {path: set() for path in sections}
    for filename, kinds in found.kinds.items():
        section = _section_of(filename, sections)
        assert section is not None, f"{filename} raises {sorted(kinds)}: docs/alarms.md has no section for it"
        raised[section] |= kinds

    for path, listed in sections.items():
        assert len(listed) == len(set(listed)), f"docs/alarms.md ({path}): a kind listed twice in {listed}"
        missing = raised[path] - set(listed)
        stale = set(listed) - raised[path]
        assert not missing, f"raised in {path} but not in its table of docs/alarms.md: {sorted(missing)}"
        assert not stale, f"listed under {path} in docs/alarms.md but not raised there: {sorted(stale)}"
    every_raised = set().union(*found.kinds.values())
    every_listed = {kind for listed in sections.values() for kind in listed}
    assert every_raised == every_listed


def test_every_alarm_built_from_a_non_literal_kind_is_a_known_forwarder() -> None:
    found = source_alarms()
    assert found.dynamic == FORWARDERS, (
        "an alarm whose kind is not a string literal: teach tests/test_alarm_catalogue.py where its kinds come "
        f"from (new: {sorted(found.dynamic - FORWARDERS)}, gone: {sorted(FORWARDERS - found.dynamic)})")
    assert not found.unknown_kind_callees, (
        f"calls with kind= this test does not know (an alarm built another way?): {sorted(found.unknown_kind_callees)}")


def test_the_catalogue_reads_the_alarms_of_each_source() -> None:
    kinds = source_alarms().kinds
    assert "bank_must_stand" in kinds["table_runtime/game/round.py"]
    assert "shoe_jam" in kinds["table_runtime/core/shoe_watch.py"]
    assert {"past_posting", "wrong_payout"} <= kinds["table_runtime/core/chip_alarms.py"]
    assert "antenna_fault" in kinds["table_runtime/chips/edge.py"]
    assert "tag_mismatch" in kinds["table_runtime/chips/integrity.py"]
    assert kinds["table_runtime/display/pin_guard.py"] == {"supervisor_pin_locked"}


SAMPLE = '''
from typing import Literal
ChipProblemKind = Literal["from_literal_a", AlarmKind.VOID_CHIP]
WindowKind = Literal["double"]

def raise_some(controller, backend, kind):
    controller.raise_alarm(Alarm(kind="plain", message="m", rule="r"))
    ChipAlarm(zone=None, kind="chip_kind", box=None, message="m", rule="r")
    backend.security_alarm("security_kind", "message", "rule")
    Payout(kind="insurance")

def by_reference(backend):
    backend.security_alarm(AlarmKind.SUPERVISOR_PIN_LOCKED, "message", "rule")
    return Alarm(kind=AlarmKind.PAST_POSTING, message="m", rule="r")

def misnamed():
    return Alarm(kind=AlarmKind.NO_SUCH_KIND, message="m", rule="r")

def forward(kind):
    return Alarm(kind=kind, message="m", rule="r")

def spread(fields):
    return Alarm(**fields)

def other():
    return Warning(kind="strange")
'''
SAMPLE_KINDS = {"from_literal_a", "void_chip", "plain", "chip_kind", "security_kind", "supervisor_pin_locked",
                "past_posting", "AlarmKind.NO_SUCH_KIND?"}


@pytest.mark.parametrize("expected", sorted(SAMPLE_KINDS))
def test_the_extractor_finds_each_construction_pattern(expected: str) -> None:
    found = alarm_kinds_in(SAMPLE, "sample.py")
    assert expected in found.kinds["sample.py"]


def test_the_extractor_flags_what_it_cannot_read() -> None:
    found = alarm_kinds_in(SAMPLE, "sample.py")
    assert found.kinds["sample.py"] == SAMPLE_KINDS
    assert found.dynamic == {("sample.py", "forward"), ("sample.py", "spread")}
    assert found.unknown_kind_callees == {("sample.py", "Warning")}


def test_the_extractor_notes_a_module_naming_a_kind_by_a_literal_and_not_one_naming_it_by_reference() -> None:
    assert alarm_kinds_in(SAMPLE, "sample.py").literal_modules == {"sample.py"}
    by_reference = ("Alarm(kind=AlarmKind.PAST_POSTING, message='m', rule='r')\n"
                    "ChipProblemKind = Literal[AlarmKind.VOID_CHIP]")
    found = alarm_kinds_in(by_reference, "ref.py")
    assert found.kinds == {"ref.py": {"past_posting", "void_chip"}} and not found.literal_modules


def test_every_kind_raised_is_an_alarm_kind_and_every_alarm_kind_is_documented() -> None:
    members = {kind.value for kind in AlarmKind}
    found = source_alarms()
    every_raised = set().union(*found.kinds.values())
    every_listed = {kind for listed in documented_kinds(DOC.read_text(encoding="utf-8")).values() for kind in listed}
    assert not every_raised - members, (
        f"raised but not members of AlarmKind (table_runtime/game/alarm_kinds.py): {sorted(every_raised - members)}")
    assert not members - every_listed, f"AlarmKind members not in docs/alarms.md: {sorted(members - every_listed)}"
    assert not members - every_raised, f"AlarmKind members raised nowhere: {sorted(members - every_raised)}"
    assert all(isinstance(kind, AlarmKind) for kind in SUPERVISOR_ACK_KINDS)


def test_only_the_listed_modules_name_a_kind_by_a_string_literal() -> None:
    literal = source_alarms().literal_modules
    assert literal <= LITERAL_KIND_MODULES, (
        f"name the kinds as AlarmKind.NAME, not as strings, in: {sorted(literal - LITERAL_KIND_MODULES)}")
    assert literal >= LITERAL_KIND_MODULES, (
        f"no kind literal left in {sorted(LITERAL_KIND_MODULES - literal)}: drop it from LITERAL_KIND_MODULES")


def test_an_alarm_named_by_its_kind_is_journaled_and_published_as_the_same_bytes() -> None:
    """The journal body, its chain hash and the feed payload hold the kind's value, never the member's repr."""
    by_member = Alarm(kind=AlarmKind.PAST_POSTING, message="m", rule="r", box=2, amounts=(("seen_cents", 500),))
    by_string = Alarm(kind="past_posting", message="m", rule="r", box=2, amounts=(("seen_cents", 500),))
    text = encode_body(to_dict(by_member))
    assert text == encode_body(to_dict(by_string))
    assert '"kind":"past_posting"' in text
    assert entry_hash("0" * 64, 7, 1.5, "alarm", text) == entry_hash("0" * 64, 7, 1.5, "alarm",
                                                                     encode_body(to_dict(by_string)))
    assert encode_payload({"kind": by_member.kind}) == b'{"kind":"past_posting"}'


def test_the_markdown_reader_takes_the_first_column_by_section() -> None:
    markdown = "\n".join([
        "# Alarms", "intro | not a table row of a section", "## Round engine (`table_runtime/game/`)", "",
        "| kind | when |", "|---|---|", "| `a_kind` | when `x` |", "| `b_kind` | ... |",
        "## Display (`table_runtime/display/`)", "| kind | when |", "|---|---|", "| `c_kind` | ... |",
    ])
    assert documented_kinds(markdown) == {"table_runtime/game/": ["a_kind", "b_kind"],
                                          "table_runtime/display/": ["c_kind"]}


def test_the_display_names_every_alarm_in_both_languages() -> None:
    """The banner shows a label, not the raw kind, for every alarm of the catalogue (docs/display.md)."""
    strings = (REPO / "table_runtime" / "display" / "static" / "i18n.js").read_text(encoding="utf-8")
    english = strings.index("\n  en: {")
    kinds = {kind for section in documented_kinds(DOC.read_text(encoding="utf-8")).values() for kind in section}
    for language, text in (("fr", strings[:english]), ("en", strings[english:])):
        missing = sorted(kind for kind in kinds if f"\n    alarm_{kind}: " not in text)
        assert not missing, f"no {language} label in i18n.js for {missing}"


def acknowledgers(markdown: str) -> dict[str, set[str]]:
    """The "ack" column (second) of every table: kind -> who acknowledges it ("dealer" / "supervisor")."""
    marks: dict[str, set[str]] = {}
    header: list[str] | None = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        if cells[0] == "kind":
            header = cells
            continue
        if header is None or set(cells[0]) <= set("-: "):
            continue
        assert header[1] == "ack", f"docs/alarms.md: the second column of every table is ack, not {header[1]!r}"
        marks.setdefault(cells[0].strip("`"), set()).add(cells[1].strip("*"))
    return marks


def test_the_supervisor_kinds_of_the_runtime_are_those_marked_in_the_catalogue() -> None:
    marks = acknowledgers(DOC.read_text(encoding="utf-8"))
    every_listed = {kind for listed in documented_kinds(DOC.read_text(encoding="utf-8")).values() for kind in listed}
    assert set(marks) == every_listed
    assert all(len(who) == 1 and who <= {"dealer", "supervisor"} for who in marks.values()), (
        f"each kind is marked dealer or supervisor, the same in every table: {marks}")
    assert {kind for kind, who in marks.items() if who == {"supervisor"}} == SUPERVISOR_ACK_KINDS
    assert every_listed >= SUPERVISOR_ACK_KINDS
