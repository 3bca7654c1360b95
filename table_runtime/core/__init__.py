"""The pure table core: the game table, the chip watcher and the shoe's rules, every decision in one place.

`TableCore.decide(command)` turns a dealer's command into the inputs it means (or a refusal);
`TableCore.apply(input)` is the one transition function; the state after a restart is the
journal's inputs applied in order. `shoe_watch` judges what the shoe reports, with the time
passed in. No asyncio, no I/O, no clock reads.
"""
