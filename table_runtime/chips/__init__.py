"""Chips on the table: the registry, stable zone contents, and the bet watcher."""
