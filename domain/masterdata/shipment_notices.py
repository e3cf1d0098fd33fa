"""Advance ship notices and their line items (spec §2 shipment_notice)."""

from domain.collections.schema import Alias, Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, DATE, DATETIME, FLOAT, STRING, UUID, strings

SHIPMENT_STATUSES = ("draft", "shipped", "delivered", "superseded", "cancelled")

SHIPMENT_NOTICE = Collection(
    name="shipment_notice",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("status", STRING, choices=SHIPMENT_STATUSES, default="draft"),
        Field("ship_notice_number", STRING),
        Field("urn", STRING, unique=True),
        Field("ship_notice_issuer", STRING, relation="organisation"),
        Field("ship_from_organisation", STRING, relation="organisation"),
        Field("ship_to_organisation", STRING, relation="organisation"),
        Field("ship_from_location", STRING, relation="location"),
        Field("ship_to_location", STRING, relation="location"),
        Field("ship_date", DATETIME),
        Field("estimated_arrival_date", DATETIME),
        *strings("carrier_name", "tracking_number"),
        *AUDIT_FIELDS,
    ),
    aliases=(Alias("line_items", "shipment_notice_line_item", "ship_notice_id", writable=True),),
    sort_field="date_created",
)

SHIPMENT_NOTICE_LINE_ITEM = Collection(
    name="shipment_notice_line_item",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("ship_notice_id", UUID, relation="shipment_notice", required=True),
        # A purchase-order line; purchase orders are not served, so it is only a key.
        Field("po_line_item_id", STRING),
        Field("product", STRING, relation="product"),
        Field("quantity_shipped", FLOAT, minimum=0),
        Field("package_id", STRING),
        Field("lot_number", STRING),
        Field("expiry_date", DATE),
        *AUDIT_FIELDS,
    ),
    sort_field="date_created",
)
