"""The tamper-evident record: signed heads of the log's Merkle tree, proofs, checks of the
stored log and of the API's answers. Draws on `domain/audit`; finds events through EPCIS."""
