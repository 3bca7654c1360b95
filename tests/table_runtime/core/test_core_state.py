"""A checkpoint's state is exact (hypothesis): the core restored from the state taken just before each input that
started a round, fed the journal's inputs from there, equals the live core (zones, locks, windows, round, view),
and equals the core replayed from the first row."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.core.core_state import core_state, restore
from table_runtime.core.inputs import CoreInput, core_to_dict
from table_runtime.core.record import replay
from table_runtime.core.table_core import TableCore
from table_runtime.game.cards import new_shoe
from table_runtime.game.events import RoundStarted
from table_runtime.game.inputs import BetsLocked, ShoeShuffled
from table_runtime.game.rules import PROFILES, profile
from table_runtime.game.snapshot import table_snapshot
from tests.table_runtime.core.test_core_replay import OPENING, STEP, ZONES, Row, assert_replays, take_step


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(sorted(PROFILES)),
       steps=st.lists(STEP, max_size=120), rounds=st.integers(1, 6))
def test_the_core_restored_from_a_round_start_checkpoint_equals_the_live_core(
        seed: int, rules: str, steps: list[tuple[str, str, frozenset[str]]], rounds: int) -> None:
    options = profile(rules)
    live = TableCore(options, zones=ZONES)
    journal: list[Row] = []
    checkpoints: list[tuple[int, str]] = []  # (inputs before it, state JSON)
    shoe = new_shoe(options.decks)
    random.Random(seed).shuffle(shoe)

    def apply(item: CoreInput) -> None:
        state = json.dumps(core_state(live)) if isinstance(item, BetsLocked) and not live.table.round_in_play else None
        events = live.step(item, len(journal) + 1)
        if state is not None and any(isinstance(event, RoundStarted) for event in events):
            checkpoints.append((len(journal), state))
        journal.append(Row(len(journal) + 1, "input", core_to_dict(item)))

    apply(ShoeShuffled(shoe_id="S1"))
    where: dict[str, str] = {}
    burns = [("card", "", frozenset[str]())] * options.burn_cards
    opening = [step for _ in range(rounds) for step in OPENING]  # several rounds' worth of bets and deals
    for step in [*burns, *opening, *steps, *opening, *steps]:
        take_step(live, apply, step, where, shoe)
    assert_replays(options, journal, live)
    assert checkpoints, "every example starts at least one round"
    for before, state in checkpoints:
        restored = replay(restore(options, None, json.loads(state), zones=ZONES), journal[before:])
        assert restored.chips == live.chips
        assert table_snapshot(restored.table) == table_snapshot(live.table)
        assert restored.snapshot_extra() == live.snapshot_extra()
        assert (restored.table.allowed(), restored.table.next_card_target) == (live.table.allowed(),
                                                                               live.table.next_card_target)
