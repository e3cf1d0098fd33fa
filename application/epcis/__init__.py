"""EPCIS use cases: capture, event queries, named queries, page tokens, subscriptions and
their delivery. Draws on `domain/epcis`."""
