"""Named EPCIS queries as an item collection (spec §2 epcis_queries): the same records
the EPCIS named-query endpoints create and run."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, JSON, STRING

EPCIS_QUERIES = Collection(
    name="epcis_queries",
    primary_key="name",
    fields=(
        Field("name", STRING),
        # EPCIS query parameter names, each with a list of values.
        Field("query", JSON, required=True),
        Field("rules", JSON),
        *AUDIT_FIELDS,
    ),
    sort_field="name",
)
