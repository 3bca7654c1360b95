"""Citations a casino can read (docs/rules.md "Citations").

No file of the repository cites a path outside it: the user's documents the rules were first written from are not
shipped, so a citation of `shared/...`, `seeds/...`, of the first statements of the rules (`RULES.md`, `TABLE.md`) or
of a line of one of those texts (three digits, a colon and the line) is a citation nobody can open. Only
`old_citations.js`, the display's reading of the older journals, holds those forms, each mapped to today's rule (and
the journals an older version wrote that the tests replay, as they were written).

Every rule an alarm cites (table_runtime/game/citations.py, any literal `rule=` of the code, the display's catalogue)
and every scenario's `cites` names the public text (« arrêté du 14 mai 2007, art. 55-4 », its paragraphs by their
headings) or a section of the docs that exists.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import yaml

from table_runtime.game import citations

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "table_runtime" / "display" / "static"
OLD_CITATIONS = STATIC / "old_citations.js"
# Journals an older version wrote, kept byte for byte as test data: their rows cite as they were journaled.
OLD_JOURNALS = {ROOT / "tests" / "table_runtime" / "journal_before_terms.json"}
OUTSIDE = re.compile(r"(?<![\w.-])(?:/?shared/|seeds/)|\b(?:RULES|TABLE)\.md\b|\b00[0-4]:\d")
LINK = re.compile(r"\]\((\.\./[^)#\s]+)")  # a markdown link to a relative path going up

# The regulation's paragraphs, by the headings its text gives them (art. 55-4; 6°: the hyper black jack field).
HEADINGS = {"Déroulement de la partie", "Paiements", "Assurance", "Les paires", "Double-down"}
REGULATION = "arrêté du 14 mai 2007, art. 55-4"
ARTICLE = re.compile(r"\bart\. 55-4\b|\b55-4 [1-7]°")
PARAGRAPHS = re.compile(r"art\. 55-4(?: [1-7]°)? « ([^»]+) »((?:, « [^»]+ »)*)")
# The other public texts the table's rules cite, by their articles (docs/accounts.md, README's staff registry): the
# advances and the registers (art. 49, 69), the gross gaming product, the tips, the approval of the staff, the identity.
PUBLIC_TEXTS = re.compile(r"arrêté (?:du 14 mai 2007|of 14 May 2007), art\. (?:49|69)\b|\bCGCT L\.2333-55-1\b"
                          r"|\bCMF L\.561-13\b|\bdécret n° 2009-1013\b|\bCSI R\.321-3[14]\b"
                          r"|\bCode du travail L\.3244-1\b")
PREFIXES = {"REGULATION", "AMENDED_2020", "TABLE_CHECK", "HOUSE_OPTION", "ADVANTAGE_PLAY"}  # of citations.py: parts
DOCS = re.compile(r"\bdocs/([\w/.-]+?\.(?:md|yaml|json))\b( « ([^»]+) »)?")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    files = []
    for name in filter(None, names):
        path = ROOT / name.decode()
        if path.suffix in {".png", ".jpg", ".ico", ".gz", ".db"} or not path.is_file():
            continue
        files.append(path)
    return files


def test_no_file_cites_a_path_outside_the_repository() -> None:
    exempt = {Path(__file__).resolve(), OLD_CITATIONS, *OLD_JOURNALS}
    found = []
    for path in tracked_text_files():
        if path in exempt:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
            for link in LINK.findall(line):
                target = (path.parent / link).resolve()
                if not target.is_relative_to(ROOT):
                    found.append(f"{path.relative_to(ROOT)}:{number}: links outside: {link}")
    assert found == []


def test_the_check_finds_every_kind() -> None:
    assert OUTSIDE.search("the regulation (`shared/seeds/000`)") and OUTSIDE.search("seeds/001 line 5")
    assert OUTSIDE.search("RULES.md The bank") and OUTSIDE.search("see TABLE.md") and OUTSIDE.search("rule 000:26")
    assert OUTSIDE.search("(001:34, 002:48)")
    assert not OUTSIDE.search("at 10:00:00, 1_000_000 rounds, arn:0000000:1")
    assert LINK.findall("see [the rules](../../RULES.md)") == ["../../RULES.md"]


def headings(path: Path) -> set[str]:
    return {line.lstrip("#").strip().casefold() for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


def citation_problems(text: str, *, sections_required: bool = True) -> list[str]:
    """What is wrong with the citation `text`: a paragraph of the regulation it names that has no such heading, a
    docs file that does not exist or a section it does not have; or that it names neither the public text nor a
    section of the docs. With `sections_required` off (a scenario's `cites`), a docs file may be named alone, and a
    section of docs/rules.md or docs/alarms.md may follow without « »."""
    problems = []
    named = False
    for match in PARAGRAPHS.finditer(text):
        for heading in [match.group(1), *re.findall(r"« ([^»]+) »", match.group(2))]:
            if heading not in HEADINGS:
                problems.append(f"art. 55-4 has no paragraph « {heading} »")
    if REGULATION in text or (not sections_required and ARTICLE.search(text)) or PUBLIC_TEXTS.search(text):
        named = True
    for match in DOCS.finditer(text):
        path = ROOT / "docs" / match.group(1)
        if not path.is_file():
            problems.append(f"no file docs/{match.group(1)}")
            continue
        section = match.group(3)
        if section is None and path.suffix == ".md" and (sections_required or path.name in {"rules.md", "alarms.md"}):
            after = text[match.end():].lstrip(" ,:(").casefold()
            named_as = re.split(r"[:(;]", after)[0].strip()  # "Hyper black jack" for "Hyper black jack (55-4 6°)"
            if sections_required or not named_as or not any(
                    after.startswith(heading) or heading.startswith(named_as) for heading in headings(path)):
                problems.append(f"docs/{match.group(1)} without a section it has")
                continue
        elif section is not None and section.casefold() not in headings(path):
            problems.append(f"docs/{match.group(1)} has no section « {section} »")
            continue
        named = True
    if not named:
        problems.append("names neither the public text nor a section of the docs")
    return problems


def code_rules() -> set[str]:
    """Every rule the code gives an alarm: the strings of citations.py, and any string literal given as an Alarm's
    `rule` anywhere in table_runtime/, or as the rule of the round's `_refuse` (game/)."""
    rules = {value for name, value in vars(citations).items()
             if name.isupper() and isinstance(value, str) and name not in PREFIXES}
    rules.add(citations.decks(6))
    for path in sorted((ROOT / "table_runtime").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            values = [keyword.value for keyword in node.keywords if keyword.arg == "rule" and called == "Alarm"]
            if called == "_refuse" and len(node.args) > 3 and path.parent.name == "game":
                values.append(node.args[3])
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    rules.add(value.value)
                elif isinstance(value, ast.JoinedStr):
                    rules.add(ast.unparse(value))  # an f-string of the code: its words are checked as written
    return rules


def catalogue_rules() -> list[str]:
    text = (STATIC / "i18n.js").read_text(encoding="utf-8")
    table = text[text.index("export const RULES = ["):]
    return [json.loads(f'"{source}"') for source in re.findall(r'^  \["(.*)", "rule_\w+"\],$', table, flags=re.M)]


def test_every_rule_an_alarm_cites_names_the_public_text_or_a_section_that_exists() -> None:
    rules = code_rules() | set(catalogue_rules())
    assert len(rules) > 40 and citations.BANK_DRAWS in rules
    assert {rule: problems for rule in sorted(rules) if (problems := citation_problems(rule))} == {}


def documented_rules() -> list[str]:
    """The rules docs/alarms.md gives in its column "rule cited", each in backticks."""
    rules: list[str] = []
    column = None
    for line in (ROOT / "docs" / "alarms.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")] if line.startswith("|") else []
        if "rule cited" in cells:
            column = cells.index("rule cited")
        elif not cells:
            column = None
        elif column is not None and len(cells) > column and not set(cells[0]) <= {"-"}:
            rules += [rule for rule in re.findall(r"`([^`]+)`", cells[column]) if "55-4" in rule or "docs/" in rule]
    return rules


def test_the_rules_docs_alarms_md_gives_name_the_public_text_or_a_section_that_exists() -> None:
    rules = documented_rules()
    assert len(rules) > 50 and citations.PAST_POSTING_WINDOW in rules
    assert {rule: problems for rule in rules if (problems := citation_problems(rule))} == {}
    known = code_rules() | {citations.ADVANTAGE_PLAY}
    assert sorted(set(rules) - known) == []  # the code's own strings, as the journal holds them


def test_every_scenario_cites_the_public_text_or_a_section_that_exists() -> None:
    found = {}
    paths = sorted((ROOT / "simulators" / "scenarios").glob("*.yaml"))
    assert len(paths) > 100
    for path in paths:
        cites = yaml.safe_load(path.read_text(encoding="utf-8")).get("cites", [])
        for cite in [cites] if isinstance(cites, str) else cites:
            if problems := citation_problems(cite, sections_required=False):
                found[f"{path.name}: {cite}"] = problems
    assert found == {}


def test_the_check_of_a_citation_finds_what_nobody_can_look_up() -> None:
    assert citation_problems(citations.DOUBLE) == [] and citation_problems(citations.PAST_POSTING) == []
    assert citation_problems("arrêté du 14 mai 2007, art. 55-4 « Les doubles »: ...") == [
        "art. 55-4 has no paragraph « Les doubles »"]
    assert citation_problems("table check, docs/rules.md « Nowhere »") == [
        "docs/rules.md has no section « Nowhere »", "names neither the public text nor a section of the docs"]
    assert citation_problems("table check, docs/rules.md") != []
    assert citation_problems("the houses' texts (the first 5 cards are burned)", sections_required=False) != []
    assert citation_problems("docs/rules.md Settlement: behind stakes", sections_required=False) == []
    assert citation_problems("docs/rules.md Somewhere else", sections_required=False) != []


def old_rules() -> list[tuple[str, str]]:
    text = OLD_CITATIONS.read_text(encoding="utf-8")
    table = text[text.index("export const OLD_RULES = ["):text.index("\n];")]
    return [(json.loads(old), json.loads(new)) for old, new in re.findall(r'^  \[(".*"),\n   (".*")\],$', table, re.M)]


def test_every_older_rule_reads_as_a_rule_of_the_catalogue() -> None:
    pairs = old_rules()
    assert len(pairs) > 50
    known = set(catalogue_rules())
    assert sorted(new for _, new in pairs if new not in known) == []
    assert all(OUTSIDE.search(old) or "55-4" in old or "issue 23" in old for old, _ in pairs)
