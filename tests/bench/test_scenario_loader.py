"""The scenario loader: a good file becomes a checked `Scenario`; a bad one is an error naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from simulators.bench.scenario import ScenarioError, load_scenario, scenario_from_mapping, scenario_paths

GOOD: dict[str, Any] = {
    "name": "a round",
    "cites": "art. 55-4 « Déroulement de la partie »",
    "profile": "fr-classic",
    "rules": {"dealer_hits_soft_17": True},
    "limits": {"min_cents": 1000, "max_cents": 20000},
    "shoe": "2C 3C 4C 5C 6C  TS 9D 8H  8C",
    "cut_after": 7,
    "steps": [
        {"draw": 5},
        {"place": {"box1": 1000, "box1.behind": [500, 500]}},
        {"chip": {"zone": "box2", "kind": "stolen", "cents": 2500}},
        {"press": "DEAL"},
        {"touch": {"command": "MANUAL_CARD", "card": "ah"}},
        {"fault": "shoe_unplug"},
        {"wait": {"device": {"shoe": "online"}}},
        {"settle": {"errors": {"box1": -500}}},
        {"load_shoe": ["AS", "KD"]},
        {"expect": {"phase": "settlement", "hands": {"box1": ["TS 8H"]}, "payouts": {"box1.hand0.original": 1000}}},
    ],
    "expect": {"alarms": ["wrong_payout"]},
}


def scenario(**changes: Any) -> dict[str, Any]:
    document = {**GOOD, **changes}
    return {key: value for key, value in document.items() if value is not None}


def test_a_good_scenario_is_checked_into_typed_steps() -> None:
    loaded = scenario_from_mapping(GOOD)
    assert loaded.rules.profile == "fr-classic" and loaded.rules.dealer_hits_soft_17
    assert loaded.limits.min_bet_cents == 1000
    assert [card.code for card in loaded.shoe][:6] == ["2C", "3C", "4C", "5C", "6C", "TS"]
    assert [step.action for step in loaded.steps][-1] == "expect"  # the final expect block is the last step
    assert loaded.steps[1].args == {"box1": 1000, "box1.behind": [500, 500]}
    assert loaded.steps[3].args == {"button": "DEAL", "wait": True}
    assert loaded.steps[4].args["card"] == "AH"
    assert loaded.steps[9].args["hands"] == {"box1": [["TS", "8H"]]}
    assert loaded.cites == ("art. 55-4 « Déroulement de la partie »",)


@pytest.mark.parametrize(("changes", "key", "words"), [
    ({"cites": None}, "cites", "the rule(s) this scenario checks"),
    ({"colour": "red"}, "colour", "unknown key"),
    ({"profile": "vegas"}, "rules.profile", "unknown profile"),
    ({"rules": {"double_on": "any"}}, "rules.double_on", "not one of"),
    ({"rules": {"late_surrender": True}}, "rules.late_surrender", "unknown rule option"),
    ({"limits": {"min_cents": 0}}, "limits.min_cents", "positive"),
    ({"limits": {"minimum": 5}}, "limits.minimum", "unknown key"),
    ({"shoe": "2C 3C XX"}, "shoe[2]", "not a card"),
    ({"cut_after": 99}, "cut_after", "1..9"),
    ({"steps": [{"place": {"box9": 1000}}]}, "steps[0].place.box9", "unknown zone"),
    ({"steps": [{"place": {"box1": 150}}]}, "steps[0].place.box1", "whole euros"),
    ({"steps": [{"press": "VOID"}]}, "steps[0].press", "touches"),
    ({"steps": [{"touch": {"command": "VOID", "role": "boss"}}]}, "steps[0].touch.role", "supervisor"),
    ({"steps": [{"touch": {"command": "MANUAL_CARD", "card": "1X"}}]}, "steps[0].touch.card[0]", "not a card"),
    ({"steps": [{"touch": {"command": "ACK_ALARM"}}]}, "steps[0].touch.alarm", "kind"),
    ({"steps": [{"chip": {"zone": "box1", "kind": "fake"}}]}, "steps[0].chip.kind", "counterfeit"),
    ({"steps": [{"fault": "earthquake"}]}, "steps[0].fault", "power_loss"),
    ({"steps": [{"draw": 0}]}, "steps[0].draw", "number of cards"),
    ({"steps": [{"dance": 1}]}, "steps[0].dance", "unknown action"),
    ({"steps": [{"draw": 1, "press": "DEAL"}]}, "steps[0]", "one action per step"),
    ({"steps": [{"settle": {"errors": {"box1": -50}}}]}, "steps[0].settle.errors.box1", "whole euros"),
    ({"steps": [{"wait": {"alarm": 3}}]}, "steps[0].wait.alarm", "one of"),
    ({"steps": [{"expect": {"phaze": "closed"}}]}, "steps[0].expect.phaze", "unknown expectation"),
    ({"steps": [{"expect": {"payouts": {"box1.hand0.original": "15"}}}]},
     "steps[0].expect.payouts.box1.hand0.original", "net cents"),
    ({"steps": [{"expect": {"alarms": [{"kind": "x", "colour": 1}]}}]}, "steps[0].expect.alarms[0].colour",
     "unknown key"),
    ({"expect": {"hands": {"bank": ["AS"]}}}, "expect.hands.bank", "box name"),
    ({"expected_fail": True}, "expected_fail", "reason"),
])
def test_a_bad_scenario_names_the_key(changes: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        scenario_from_mapping(scenario(**changes))
    assert raised.value.key == key, raised.value
    assert words in raised.value.message


def test_files_yaml_and_toml_and_their_errors(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(GOOD), encoding="utf-8")
    assert load_scenario(good).name == "a round"
    toml = tmp_path / "t.toml"
    toml.write_text('cites = "art. 55-4 « Déroulement de la partie »"\n[[steps]]\ndraw = 2\n', encoding="utf-8")
    assert load_scenario(toml).name == "t"  # the file's stem by default
    broken = tmp_path / "broken.yaml"
    broken.write_text("steps: [draw: 1\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_scenario(broken)
    with pytest.raises(ScenarioError, match="no such scenario"):
        scenario_paths([tmp_path / "missing.yaml"])
    assert scenario_paths([tmp_path]) == [broken, good, toml]
