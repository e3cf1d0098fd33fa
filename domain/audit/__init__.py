"""The tamper-evident record of the event log: an RFC 9162 Merkle tree and its signed heads."""
