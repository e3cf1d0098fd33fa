"""Identifier codes: the jobs that generate them, the codes, and reservations of codes
(spec §2 identifier_job, code_reservation, unique_code; limits of §8)."""

from domain.collections.schema import Alias, Collection, Field
from domain.masterdata.fields import (
    AUDIT_FIELDS,
    CODE_TYPES,
    DATETIME,
    FLOAT,
    INTEGER,
    JOB_STATUSES,
    JSON,
    STRING,
    TEXT,
    UUID,
)

#: Codes one job may generate by default (spec §8: "at most 1 million (larger on
#: request)"); the setting TRACEPOINT_CODE_JOB_MAX_QUANTITY changes it.
MAX_JOB_QUANTITY = 1_000_000
CHARACTER_SETS = ("alphanumeric", "numeric", "alphanumeric_upper", "unambiguous")
CODE_STATUSES = ("unassigned", "reserved", "assigned", "encoded")

IDENTIFIER_JOB = Collection(
    name="identifier_job",
    primary_key="id",
    fields=(
        Field("id", UUID),
        # A GS1 serial (AI 21) holds at most 20 characters.
        Field("length", INTEGER, default=8, minimum=6, maximum=20),
        # The upper bound is a setting, checked by the identifier-job rules.
        Field("quantity", INTEGER, required=True, minimum=1),
        Field("reference_id", STRING),
        Field("type", STRING, choices=CODE_TYPES, default="sgtin"),
        Field("product", STRING, relation="product"),
        Field("character_set", STRING, choices=CHARACTER_SETS, default="alphanumeric"),
        Field("status", STRING, choices=JOB_STATUSES, default="new"),
        Field("sscc_start_serial", INTEGER, default=0, minimum=0),
        Field("sscc_extension_digit", INTEGER, minimum=0, maximum=9),
        Field("sscc_company_prefix", STRING),
        Field("domain", JSON),
        Field("error_message", TEXT, readonly=True),
        Field("quantity_created", INTEGER, default=0, readonly=True),
        *AUDIT_FIELDS,
    ),
    aliases=(Alias("codes", "unique_code", "identifier_job"),),
    sort_field="date_created",
)

CODE_RESERVATION = Collection(
    name="code_reservation",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("reserved_for", STRING, relation="organisation"),
        Field("code_type", STRING, choices=CODE_TYPES, default="sgtin"),
        Field("quantity", INTEGER, required=True, minimum=1),
        Field("status", STRING, choices=JOB_STATUSES, default="new"),
        # "values include csv, json, xml (open list)": the export step decides.
        Field("export_type", STRING, default="csv"),
        Field("export_file", UUID, readonly=True, relation="files"),
        Field("url_suffix", STRING),
        Field("product", STRING, relation="product"),
        Field("quantity_reserved", INTEGER, default=0, readonly=True),
        Field("error_message", TEXT, readonly=True),
        Field("reference_id", STRING),
        Field("purchase_order", STRING),
        *AUDIT_FIELDS,
    ),
    aliases=(Alias("codes", "unique_code", "reservation"),),
    sort_field="date_created",
)

UNIQUE_CODE = Collection(
    name="unique_code",
    primary_key="id",
    fields=(
        Field("id", UUID),
        # What the job generated stays as it was; status and custom_id move by PATCH.
        Field("digital_link", STRING, readonly=True),
        Field("code", STRING, readonly=True),
        Field("product", STRING, relation="product", readonly=True),
        Field("identifier_job", UUID, relation="identifier_job", readonly=True),
        Field("epc_join_key", STRING, readonly=True),
        Field("status", STRING, choices=CODE_STATUSES, default="unassigned"),
        Field("reservation", UUID, relation="code_reservation", readonly=True),
        Field("type", STRING, choices=CODE_TYPES, readonly=True),
        Field("custom_id", STRING),
        *AUDIT_FIELDS,
    ),
    sort_field="date_created",
    bulk=True,
    # A million codes: a trigram index over links would cost more than it saves.
    search=("code", "custom_id"),
)

#: Scans of codes through the Digital Link resolver: kept by the service, read by
#: permission (not in the spec; integrity checks point at them from `source_scan`).
CODE_SCAN = Collection(
    name="code_scan",
    primary_key="id",
    fields=(
        Field("id", UUID),
        # The scanned path as the resolver read it (`/01/<gtin>/21/<serial>`, …).
        Field("scanned", STRING),
        Field("type", STRING, choices=CODE_TYPES),
        Field("code", UUID, relation="unique_code"),
        Field("product", STRING, relation="product"),
        Field("lot", STRING),
        Field("scanned_at", DATETIME),
        Field("ip", STRING),
        Field("user_agent", STRING),
        Field("latitude", FLOAT),
        Field("longitude", FLOAT),
        Field("country", STRING),
    ),
    sort_field="scanned_at",
    read_only=True,
)
