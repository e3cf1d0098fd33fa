"""Outbound flows: what is pushed to which partner, and how far it got (spec §2), and
the log of every delivery attempt."""

from domain.collections.schema import Alias, Collection, Field
from domain.masterdata.fields import (
    AUDIT_FIELDS,
    BOOLEAN,
    DATETIME,
    INTEGER,
    JSON,
    STRING,
    TEXT,
    UUID,
)

FLOW_STATUSES = ("idle", "running", "retrying", "error")
RUN_OUTCOMES = ("sent", "nothing", "retrying", "stopped")

EPCIS_OUTBOUND_FLOW = Collection(
    name="epcis_outbound_flow",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("type", STRING, choices=("unilateral_push",), default="unilateral_push"),
        Field("connection", UUID, relation="epcis_connection"),
        # Kept for people to read and to move: setting it back replays from that time.
        Field("max_record_time_processed", DATETIME),
        # The named query that selects what the flow sends.
        Field("epcis_query", STRING, relation="epcis_queries"),
        Field("send_packing_hierarchy", BOOLEAN, default=False),
        Field("send_commissioning_events", BOOLEAN, default=False),
        Field("interval_seconds", INTEGER, default=60, minimum=1, maximum=86_400),
        Field("active", BOOLEAN, default=True),
        # The state the runner keeps.
        Field("status", STRING, choices=FLOW_STATUSES, default="idle", readonly=True),
        Field("last_run_at", DATETIME, readonly=True),
        Field("last_error", TEXT, readonly=True),
        Field("backlog", INTEGER, default=0, readonly=True),
        # The cursor: the log position of the last event delivered (0: none yet).
        Field("last_position", INTEGER, default=0, readonly=True),
        *AUDIT_FIELDS,
    ),
    aliases=(Alias("runs", "epcis_outbound_flow_run", "flow"),),
    sort_field="date_created",
)

#: One delivery attempt of a flow: kept by the service, read through the flow's runs.
EPCIS_OUTBOUND_FLOW_RUN = Collection(
    name="epcis_outbound_flow_run",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("flow", UUID, relation="epcis_outbound_flow"),
        Field("started_at", DATETIME),
        Field("finished_at", DATETIME),
        Field("outcome", STRING, choices=RUN_OUTCOMES),
        Field("events", INTEGER),
        Field("http_status", INTEGER),
        Field("error", TEXT),
        Field("from_position", INTEGER),
        Field("to_position", INTEGER),
    ),
    sort_field="started_at",
    read_only=True,
)

#: A webhook subscription to a named query (`/v2/epcis/.../subscriptions`): kept by the
#: EPCIS endpoints, readable here.
EPCIS_SUBSCRIPTION = Collection(
    name="epcis_subscription",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("query_name", STRING, relation="epcis_queries"),
        Field("dest", STRING),
        # Signs deliveries; never read back.
        Field("signature_token", STRING, concealed=True),
        Field("report_if_empty", BOOLEAN),
        Field("stream", BOOLEAN),
        Field("schedule", JSON),
        Field("initial_record_time", DATETIME),
        # The `GS1-EPC-Format` of the request that made it; none (made before formats
        # were kept): deliveries stay as captured.
        Field("epc_format", STRING),
        # The media type its documents are sent in (`application/xml` when the request
        # that made it accepted XML first) and, for XML, its `GS1-CBV-XML-Format`; none
        # (made before these were kept): JSON.
        Field("media_type", STRING),
        Field("cbv_xml_format", STRING),
        Field("min_record_time", DATETIME),
        Field("last_position", INTEGER, default=0),
        Field("last_notified_at", DATETIME),
        Field("active", BOOLEAN, default=True),
        Field("status", STRING, choices=("active", "retrying", "error"), default="active"),
        Field("last_error", TEXT),
        Field("user_created", UUID, relation="users"),
        Field("date_created", DATETIME),
    ),
    sort_field="date_created",
    read_only=True,
)
