"""The floor: one service that follows every table's feed, stores it in PostgreSQL and checks it.

It consumes what the tables publish (`table_runtime.feed`), never drives a table, and imports no simulator
(docs/floor.md; tests/test_layers.py: firmware_bridge <- drivers <- table_runtime <- casino_floor).
"""
