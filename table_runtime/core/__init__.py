"""The table core: the rules the runtime applies to what the devices report, pure (no I/O, no clock read)."""
