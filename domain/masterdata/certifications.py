"""Certifications and what they cover (spec §2 certification)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, DATE, STRING, TEXT, UUID, strings
from domain.masterdata.related import covered_alias

CERTIFICATION = Collection(
    name="certification",
    primary_key="id",
    fields=(
        Field("id", UUID),
        *strings("certification_agency", "certification_agency_url"),
        Field("certification_start_date", DATE),
        Field("certification_end_date", DATE),
        Field("initial_certification_date", DATE),
        Field("certification_audit_date", DATE),
        Field("certification_identification", STRING),
        Field("certification_standard", STRING),
        Field("certification_statement", TEXT),
        *strings("certification_type", "certification_uri", "certification_value"),
        # Free-form in use (ACTIVE, EXPIRED...).
        Field("certification_status", STRING),
        Field("primary_attachment", UUID, relation="files"),
        *AUDIT_FIELDS,
    ),
    aliases=(
        covered_alias("location"),
        covered_alias("organisation"),
        covered_alias("product"),
    ),
    sort_field="date_created",
)
