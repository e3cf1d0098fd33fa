"""Outbound flows: readers of the event log that push EPCIS documents to partners, run on
request, and Publish Lot. Draws on `domain/access/outbound_targets.py` and
`domain/masterdata/outbound_flows.py`."""
