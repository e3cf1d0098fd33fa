"""Read-model lookups of access control."""
