"""The EPCIS 2.0 REST binding under `/v2/epcis`: capture, validate, events, named queries
and subscriptions."""
