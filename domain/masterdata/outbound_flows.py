"""Outbound flows: what is pushed to which partner, and how far it got (spec §2)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, BOOLEAN, DATETIME, STRING, UUID

EPCIS_OUTBOUND_FLOW = Collection(
    name="epcis_outbound_flow",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("type", STRING, default="unilateral_push"),
        # The partner connection; the collection that holds connections comes with the
        # flows themselves.
        Field("connection", UUID),
        Field("max_record_time_processed", DATETIME),
        # The named query that selects what the flow sends.
        Field("epcis_query", STRING, relation="epcis_queries"),
        Field("send_packing_hierarchy", BOOLEAN, default=False),
        Field("send_commissioning_events", BOOLEAN, default=False),
        *AUDIT_FIELDS,
    ),
    sort_field="date_created",
)
