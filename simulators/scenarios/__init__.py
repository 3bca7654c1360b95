"""The scenario library of the bench (docs/bench.md): YAML files shipped as package data."""
