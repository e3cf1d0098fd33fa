"""`/audit`: the tamper-evident record's public key, signed heads and proofs."""
