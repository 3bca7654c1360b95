"""The pure game core: cards, rule options, hands, shoe accounting and the round state machine.

Nothing here does I/O, reads a clock or logs: inputs in, events out.
"""
