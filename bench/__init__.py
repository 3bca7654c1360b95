"""Benchmarks: each prints its figure and the command that produced it."""
