"""`table-runtime` commands that need the simulators (`demo`, `simulate`).

They are found by the product's CLI through the `smart_table.commands` entry
point group (pyproject.toml), so `table_runtime` never imports this package.
"""
