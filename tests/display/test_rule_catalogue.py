"""Every rule the source cites has its text in the display's catalogue (static/i18n.js, RULES), in French and
English, and every reason the round gives for refusing a command is worded by a pattern of REASONS: the
banner and the toasts show them in the page's language, not the source's English.

The rules are those of table_runtime/game/citations.py and any literal an Alarm is given as its rule
(tests/test_citations.py `code_rules`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from table_runtime.game import citations
from tests.test_citations import OUTSIDE, code_rules

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = REPO / "table_runtime" / "display" / "static" / "i18n.js"


def catalogue() -> dict[str, str]:
    text = CATALOGUE.read_text(encoding="utf-8")
    table = text[text.index("export const RULES = ["):]
    return dict(re.findall(r'^  \["(.*)", "(rule_\w+)"\],$', table, flags=re.MULTILINE))


def test_every_rule_the_source_cites_is_in_the_catalogue() -> None:
    cited = code_rules() - {citations.decks(6)}  # the catalogue holds the deck count as {decks}
    assert len(cited) > 30 and citations.DECKS_TEMPLATE in cited
    assert sorted(cited - set(catalogue())) == []


def test_each_rule_of_the_catalogue_has_its_text_in_both_languages() -> None:
    text = CATALOGUE.read_text(encoding="utf-8")
    english = text.index("\n  en: {")
    for key in catalogue().values():
        assert f"\n    {key}: " in text[:english], f"no French text for {key}"
        assert f"\n    {key}: " in text[english:], f"no English text for {key}"


# Sample values for an f-string's fields, by the name of what they hold, to make a reason the runtime could write.
SAMPLES = {"phase": "playing", "total": "12", "first": "KH", "second": "QS", "cards": "4S 9D", "len": "4",
           "number": "3"}
UNKNOWN = "7"  # a field holding a whole reason the module gives elsewhere (`f"{command} refused: {reason}"`)
REFUSED = re.compile(r"^[\w{}().]+ (refused|not applied): ")


def _sample(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                source = ast.unparse(value.value)  # type: ignore[attr-defined]
                parts.append(next((sample for name, sample in SAMPLES.items() if name in source), UNKNOWN))
        return "".join(parts)
    return None


def refusal_reasons(source: str) -> set[str]:
    """The reasons a module gives for a refused command: the words of each `Refusal(code, words)`
    (game/refusals.py), the second argument of `_refuse(...)`, what the `_*_refusal` methods return, what is
    assigned to `reason`, and what follows "X refused: " in a message."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        candidates: list[ast.expr] = []
        called = node.func if isinstance(node, ast.Call) else None
        if (isinstance(called, ast.Name) and called.id == "Refusal") or (
                isinstance(called, ast.Attribute) and called.attr == "_refuse"):
            assert isinstance(node, ast.Call)
            candidates.append(node.args[1])
        elif (isinstance(node, ast.FunctionDef) and node.name.endswith("_refusal")
              and not node.name.lstrip("_").startswith("insurance")):  # insurance_refused: a body of its own
            candidates += [ret.value for ret in ast.walk(node) if isinstance(ret, ast.Return) and ret.value]
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "reason" for t in node.targets):
            candidates.append(node.value)
        elif isinstance(node, ast.keyword) and node.arg == "message":
            text = _sample(node.value)
            if text is not None and REFUSED.match(text) and REFUSED.sub("", text) != UNKNOWN:
                found.add(REFUSED.sub("", text))
            continue
        found |= {text for text in map(_sample, candidates) if text is not None}
    return found


def reason_patterns() -> list[re.Pattern[str]]:
    text = CATALOGUE.read_text(encoding="utf-8")
    table = text[text.index("export const REASONS = ["):]
    sources = re.findall(r'^  \["(.*)", "reason_\w+"\],$', table, flags=re.MULTILINE)
    return [re.compile("^" + source.replace("\\\\", "\\").replace("(?<", "(?P<") + "$") for source in sources]


def test_every_reason_the_round_gives_for_a_refusal_is_worded_in_the_catalogue() -> None:
    sources = [*sorted((REPO / "table_runtime/game").glob("*.py")), *sorted((REPO / "table_runtime/core").glob("*.py"))]
    reasons = set().union(*(refusal_reasons(path.read_text(encoding="utf-8")) for path in sources))
    assert len(reasons) > 20
    patterns = reason_patterns()
    unworded = sorted(reason for reason in reasons if not any(pattern.match(reason) for pattern in patterns))
    assert unworded == []


# What a supervisor reads cites the public text (the arrêté's article), a house option or the table's own check, in
# words: never a file that does not ship, a path outside the repository or a line number of a text (OUTSIDE), nor a
# path of the repository's own docs (a supervisor reads words, the docs are for whoever looks the rule up).
NOT_PUBLIC = re.compile(OUTSIDE.pattern + r"|\bdocs/")


def shown_texts() -> dict[str, str]:
    """Every text of the catalogue (both languages), by language and key; the RULES and REASONS tables below
    them match the runtime's words and are not shown."""
    text = CATALOGUE.read_text(encoding="utf-8")
    strings = text[:text.index("export const RULES = [")]
    return {f"{language}.{key}": value for language, block in (("fr", strings[:strings.index("\n  en: {")]),
                                                               ("en", strings[strings.index("\n  en: {"):]))
            for key, value in re.findall(r'^    (\w+): "((?:[^"\\]|\\.)*)",$', block, flags=re.MULTILINE)}


def test_what_a_supervisor_reads_cites_the_public_text_never_a_file_of_ours() -> None:
    texts = shown_texts()
    assert len(texts) > 500 and "fr.rule_bank_draws" in texts
    assert {key: value for key, value in texts.items() if NOT_PUBLIC.search(value)} == {}
    assert "arrêté du 14 mai 2007, art. 55-4" in texts["fr.rule_bank_draws"]
