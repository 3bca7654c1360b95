"""table_runtime package."""
