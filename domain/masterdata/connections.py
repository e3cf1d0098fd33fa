"""Partner connections: where outbound flows deliver EPCIS documents, and how they sign
in (issue 6; the spec names `epcis_connection` as what a flow's `connection` points at)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, BOOLEAN, INTEGER, JSON, STRING, UUID

AUTH_TYPES = ("none", "bearer", "basic", "header")

EPCIS_CONNECTION = Collection(
    name="epcis_connection",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("name", STRING, required=True),
        # The partner's EPCIS capture endpoint (checked by the connection rules).
        Field("url", STRING, required=True),
        Field("auth_type", STRING, choices=AUTH_TYPES, default="none"),
        Field("auth_username", STRING),
        # Sent to the partner, so kept as given; never read back (write-only).
        Field("auth_secret", STRING, concealed=True),
        Field("auth_header_name", STRING),
        Field("headers", JSON),
        Field("timeout_seconds", INTEGER, default=30, minimum=1, maximum=300),
        Field("active", BOOLEAN, default=True),
        *AUDIT_FIELDS,
    ),
    sort_field="date_created",
)
