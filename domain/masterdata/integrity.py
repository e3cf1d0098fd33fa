"""Integrity check results: authenticity assessments of scanned codes (spec §2)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, JSON, STRING, TEXT, UUID

INTEGRITY_CHECK_RESULT = Collection(
    name="integrity_check_result",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("status", STRING, choices=("new", "reviewed", "dismissed"), default="new"),
        Field(
            "result",
            STRING,
            choices=("ok", "unrecognized", "unactivated", "duplicated", "diverted"),
        ),
        Field("check_source", STRING, choices=("crowd_sourced", "inspector")),
        Field("reason", TEXT),
        Field("review_comments", TEXT),
        Field("code", STRING),
        Field("source_scan", JSON),
        Field("product", STRING, relation="product"),
        Field("object_location", JSON),
        *AUDIT_FIELDS,
    ),
    sort_field="date_created",
)
