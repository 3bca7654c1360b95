"""Every rule the source cites has its text in the display's catalogue (static/i18n.js, RULES), in French and
English: the banner shows a rule in the page's language, not the source's English.

The rules are read from the source with `ast`: every string literal (implicit concatenations joined, an
f-string's fields as `{name}`) that starts as a citation does (`RULES.md `, `TABLE.md`, `000:26`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = REPO / "table_runtime" / "display" / "static" / "i18n.js"
CITATION = re.compile(r"^(RULES\.md |TABLE\.md|\d{3}:\d)")


def cited_rules(source: str) -> set[str]:
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):  # docstrings are not rules
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))
    rules: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(value) for value in node.values)
            text = "".join(str(value.value) if isinstance(value, ast.Constant) else
                           "{" + ast.unparse(value.value).split(".")[-1] + "}"  # type: ignore[attr-defined]
                           for value in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if CITATION.match(text):
            rules.add(text)
    return rules


def catalogue() -> dict[str, str]:
    text = CATALOGUE.read_text(encoding="utf-8")
    table = text[text.index("export const RULES = ["):]
    return dict(re.findall(r'^  \["(.*)", "(rule_\w+)"\],$', table, flags=re.MULTILINE))


def test_every_rule_the_source_cites_is_in_the_catalogue() -> None:
    cited = set().union(*(cited_rules(path.read_text(encoding="utf-8"))
                          for path in sorted((REPO / "table_runtime").rglob("*.py"))))
    assert len(cited) > 30
    assert sorted(cited - set(catalogue())) == []


def test_each_rule_of_the_catalogue_has_its_text_in_both_languages() -> None:
    text = CATALOGUE.read_text(encoding="utf-8")
    english = text.index("\n  en: {")
    for key in catalogue().values():
        assert f"\n    {key}: " in text[:english], f"no French text for {key}"
        assert f"\n    {key}: " in text[english:], f"no English text for {key}"


def test_the_reader_finds_literals_concatenations_and_f_strings() -> None:
    sample = (
        'RULE = ("TABLE.md a long rule " "in two parts")\n'
        'def f(decks):\n    """TABLE.md not a rule: a docstring."""\n'
        '    return Alarm(rule=f"RULES.md each card {shoe.decks} times (000:1)", message="000:1 is not first")\n'
    )
    assert cited_rules(sample) == {"TABLE.md a long rule in two parts", "RULES.md each card {decks} times (000:1)",
                                   "000:1 is not first"}
