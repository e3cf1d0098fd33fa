"""Lots (batches) of a product (spec §2 lot)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, BOOLEAN, DATE, FLOAT, JSON, STRING, UUID

LOT = Collection(
    name="lot",
    primary_key="id",
    fields=(
        Field("id", STRING),
        Field("lot_number", STRING),
        Field("production_date", DATE),
        Field("expiry_date", DATE),
        Field("best_before_date", DATE),
        Field("sell_by_date", DATE),
        Field("harvest_start_date", DATE),
        Field("harvest_end_date", DATE),
        Field("digital_link", STRING),
        # Not in the spec: a scan of the lot's codes goes here before the product's URL.
        Field("lot_redirection_url", STRING),
        Field("quantity", FLOAT, minimum=0, decimal_text=True),
        # Examples in the spec: draft, published; Publish Lot sets the latter.
        Field("status", STRING, default="draft"),
        Field("uom", STRING, relation="ref_uom"),
        Field("production_location", STRING, relation="location"),
        Field("product", STRING, relation="product"),
        Field("quality_report", UUID, relation="files"),
        Field("input_material", JSON),
        Field("catch_information_list", JSON),
        Field("use_gs1_identifiers", BOOLEAN),
        *AUDIT_FIELDS,
    ),
    sort_field="date_created",
)
