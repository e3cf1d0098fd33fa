"""Field shorthands shared by the item collections, and their common audit fields."""

from domain.collections.schema import Field, FieldType

UUID, STRING, TEXT = FieldType.UUID, FieldType.STRING, FieldType.TEXT
INTEGER, FLOAT, BOOLEAN = FieldType.INTEGER, FieldType.FLOAT, FieldType.BOOLEAN
DATETIME, DATE, JSON = FieldType.DATETIME, FieldType.DATE, FieldType.JSON

#: Set by the service on every create and update, never by a payload (spec §2).
AUDIT_FIELDS = (
    Field("user_created", UUID, relation="users", readonly=True),
    Field("date_created", DATETIME, readonly=True),
    Field("user_updated", UUID, relation="users", readonly=True),
    Field("date_updated", DATETIME, readonly=True),
)

#: What a code identifies (identifier jobs, reservations, codes).
CODE_TYPES = ("sgtin", "sscc", "grai", "short_code")
#: The life of a background job (identifier jobs, code reservations).
JOB_STATUSES = ("new", "in_progress", "complete", "error")


def strings(*names: str) -> tuple[Field, ...]:
    """Plain string fields."""
    return tuple(Field(name, STRING) for name in names)


def units(*names: str) -> tuple[Field, ...]:
    """Fields holding a UN/ECE Recommendation 20 unit code: relations to `ref_uom`."""
    return tuple(Field(name, STRING, relation="ref_uom") for name in names)


def country(name: str) -> Field:
    """A field holding an ISO 3166-1 alpha-2 country code: a relation to `ref_country`."""
    return Field(name, STRING, relation="ref_country")


def numbers(*names: str, minimum: float | None = None) -> tuple[Field, ...]:
    """Plain number fields."""
    return tuple(Field(name, FLOAT, minimum=minimum) for name in names)
