"""The floor: every table's feed gathered for the pit (the floor service, its store, the pit page)."""
