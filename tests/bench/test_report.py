"""Expected against seen, and the report: the first difference, in the order the expect block names things."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from typing import Any

from simulators.bench.expect import Difference, Seen, differences, payout_key
from simulators.bench.report import junit_xml, text_report
from simulators.bench.runner import ScenarioResult


def seen(**changes: Any) -> Seen:
    snapshot = {
        "phase": "settlement", "round": 1, "recovered": False, "held_cards": [], "allowed": ["CONFIRM", "VOID"],
        "turn": None, "bank": {"cards": ["9D", "8C"], "total": 17},
        "boxes": [{"box": 1, "hands": [{"cards": ["TS", "9H"], "total": 19}]}],
        "devices": {"shoe": "online", "chips": "online"}, "zones": {"box1": 1000}, "shoe": {"cut_card_reached": False},
    }
    values: dict[str, Any] = {
        "snapshot": snapshot,
        "alarms": [{"kind": "past_posting", "box": 1, "amounts": {"expected_cents": 1000, "seen_cents": 1500},
                    "message": "box1: chips changed"}],
        "active_alarms": [], "payouts": {"box1.hand0.original": 1000}, "journal_ok": True, "journal_reason": "ok",
        "entries": [{"seq": 1, "row": "input", "type": "BetsLocked"},
                    {"seq": 2, "row": "event", "type": "X", "box": 1}],
    }
    values.update(changes)
    return Seen(**values)


def test_everything_as_expected_is_no_difference() -> None:
    expected = {"phase": "settlement", "hands": {"box1": [["TS", "9H"]]}, "bank": ["9D", "8C"],
                "totals": {"box1": 19, "bank": 17}, "payouts": {"box1.hand0.original": 1000},
                "alarms": [{"kind": "past_posting", "box": 1, "amounts": {"seen_cents": 1500}}],
                "journal": {"verify": "ok", "inputs": ["BetsLocked"], "contains": [{"row": "event", "box": 1}]},
                "devices": {"shoe": "online"}, "zones": {"box1": 1000}}
    assert differences(expected, seen(), "expect") == []


def test_the_first_difference_follows_the_order_of_the_block() -> None:
    expected = {"payouts": {"box1.hand0.original": 1500}, "phase": "closed"}
    found = differences(expected, seen(), "expect[steps[9]]")
    assert found[0] == Difference("expect[steps[9]].payouts.box1.hand0.original", 1500, 1000)
    assert str(found[0]) == "expect[steps[9]].payouts.box1.hand0.original: expected 1500, seen 1000"
    assert found[1].where == "expect[steps[9]].phase"


def test_a_stake_settled_but_not_expected_is_a_difference() -> None:
    found = differences({"payouts": {}}, seen(), "expect")
    assert found == [Difference("expect.payouts.box1.hand0.original", None, 1000,
                                "a stake settled that the scenario did not expect")]


def test_alarms_are_exact_and_ordered_but_alarms_include_is_a_subsequence() -> None:
    raised = [{"kind": "a", "box": 1}, {"kind": "b", "box": 2}]
    assert differences({"alarms": ["a"]}, seen(alarms=raised), "x")[0].note.startswith("an alarm the scenario")
    wrong_box = differences({"alarms": [{"kind": "a", "box": 3}, "b"]}, seen(alarms=raised), "x")
    assert wrong_box[0].where == "x.alarms[0]" and "box 1" in wrong_box[0].note
    assert differences({"alarms_include": ["b"]}, seen(alarms=raised), "x") == []
    assert differences({"alarms_include": ["b", "a"]}, seen(alarms=raised), "x")[0].where == "x.alarms_include[1]"
    missing = differences({"alarms": ["a", "b", "c"]}, seen(alarms=raised), "x")
    assert missing == [Difference("x.alarms[2]", {"kind": "c"}, None, "this alarm was not raised")]


def test_feed_every_seq_names_the_first_gap() -> None:
    found = differences({"feed": {"every_seq": True}}, seen(feed_seqs=[1, 2, 4], last_seq=4), "x")
    assert (found[0].expected, found[0].seen) == (3, 4)
    assert "position 2" in found[0].note
    no_feed = differences({"feed": {"every_seq": True}}, seen(), "x")
    assert "without the feed" in no_feed[0].note


def test_payout_keys_name_the_stake() -> None:
    assert payout_key({"owner": "box2.behind", "hand": 1, "kind": "split"}) == "box2.behind.hand1.split"
    assert payout_key({"owner": "box2", "hand": 0, "kind": "insurance"}) == "box2.insurance"


def results() -> list[ScenarioResult]:
    return [
        ScenarioResult(name="good", path="a.yaml", status="passed", seconds=1.0, cites=("art. 55-4 (six decks)",)),
        ScenarioResult(name="bad", path="b.yaml", status="failed", seconds=2.0, cites=("art. 55-4 (seven boxes)",),
                       differences=[Difference("expect.phase", "closed", "bank"), Difference("expect.round", 2, 1)]),
        ScenarioResult(name="known", path="c.yaml", status="xfail", seconds=0.5, expected_fail="bug 7",
                       differences=[Difference("expect.alarms[0]", "x", None)]),
        ScenarioResult(name="crash", path="d.yaml", status="error", seconds=0.1, error="ValueError: boom"),
    ]


def test_the_text_report_shows_each_failure_with_its_first_difference() -> None:
    text = text_report(results())
    assert "PASS  good" in text
    assert "FAIL  bad (2.0 s)\n      first difference: expect.phase: expected 'closed', seen 'bank'" in text
    assert "expect.round" not in text  # only the first
    assert "XFAIL known" in text and "bug 7" in text
    assert "ERROR crash" in text and "ValueError: boom" in text
    assert text.splitlines()[-1].startswith("4 scenario(s): 1 passed, 1 failed, 1 error, 1 xfail")


def test_junit_xml_has_a_testcase_per_scenario_with_the_first_difference_as_message() -> None:
    root = ElementTree.fromstring(junit_xml(results()))
    suite = root.find("testsuite")
    assert suite is not None
    counts = (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped"))
    assert counts == ("4", "1", "1", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["bad"].find("failure")
    assert failure is not None and failure.get("message") == "expect.phase: expected 'closed', seen 'bank'"
    assert "expect.round" in (failure.text or "") and "cites: art. 55-4 (seven boxes)" in (failure.text or "")
    assert cases["good"].find("failure") is None
    assert cases["known"].find("skipped") is not None
    error = cases["crash"].find("error")
    assert error is not None and error.get("message") == "ValueError: boom"


def test_display_and_recall_are_compared_when_asked() -> None:
    shown = seen(display_snapshot={"phase": "settlement", "round": 1},
                 recall=[{"round": 1, "result": "settled"}, {"round": 2, "result": "voided"}])
    assert differences({"display": {"phase": "settlement"}, "recall": {"rounds": [1, 2]}}, shown, "x") == []
    found = differences({"display": {"phase": "closed"}, "recall": {"results": ["settled", "settled"]}}, shown, "x")
    assert [d.where for d in found] == ["x.display.phase", "x.recall.results"]
    assert "without the display" in differences({"display": {"phase": "x"}}, seen(), "x")[0].note
