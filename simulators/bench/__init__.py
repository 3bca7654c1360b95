"""The hardware-in-the-loop test bench: scripted scenarios against the real runtime (docs/bench.md)."""
