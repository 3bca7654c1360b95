"""Advantage-play detection and the shoe figures it reads, as pure folds (docs/rating.md).

`shoe_state` follows the cards out of the shoe (Hi-Lo running and true count, the
exact composition left); `round_edge` gives the expected value of the next round
for a basic-strategy player from that composition; `round_facts` reads what the
table recorded of one round for one player; `detection` scores a session round by
round and gives flags (advice with figures, never an action). Imports only
`table_runtime.game` and `table_runtime.strategy`.
"""
