"""The EPCIS query tables and their readers: events, capture jobs, named queries,
subscriptions and the location tree."""
