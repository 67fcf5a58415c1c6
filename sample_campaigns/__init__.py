"""Sample campaigns as command scripts (TOML), replayed by the tests and by ``cristal demo``; shipped in the wheel."""
