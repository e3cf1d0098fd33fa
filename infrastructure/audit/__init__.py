"""The tamper-evident record's storage: leaves written with the log, the tree, signed heads."""
