"""The program's identity: the manifest of every installed file, its Ed25519 signature, and the checks on it."""
