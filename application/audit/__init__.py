"""The tamper-evident record: signed heads of the log's Merkle tree, proofs, checks."""
