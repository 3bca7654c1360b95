"""The casino's staff: the registry of employees (registry.py) and their credentials at the table."""
