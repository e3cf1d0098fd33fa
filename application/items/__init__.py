"""The generic collection machinery (list, read, create, update, delete), files, history and
the master-data rules. Draws on `domain/collections`, `domain/records` and `domain/masterdata`."""
