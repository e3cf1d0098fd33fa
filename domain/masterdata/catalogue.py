"""Every item collection, and which of them have `/items/<collection>` endpoints."""

from domain.masterdata.certifications import CERTIFICATION
from domain.masterdata.codes import CODE_RESERVATION, CODE_SCAN, IDENTIFIER_JOB, UNIQUE_CODE
from domain.masterdata.connections import EPCIS_CONNECTION
from domain.masterdata.epcis_queries import EPCIS_QUERIES
from domain.masterdata.integrity import INTEGRITY_CHECK_RESULT
from domain.masterdata.locations import LOCATION, LOCATION_CERTIFICATIONS, LOCATION_TRANSLATIONS
from domain.masterdata.lots import LOT
from domain.masterdata.organisations import (
    ORGANISATION,
    ORGANISATION_CERTIFICATIONS,
    ORGANISATION_TRANSLATIONS,
)
from domain.masterdata.outbound_flows import (
    EPCIS_OUTBOUND_FLOW,
    EPCIS_OUTBOUND_FLOW_RUN,
    EPCIS_SUBSCRIPTION,
)
from domain.masterdata.products import PRODUCT, PRODUCT_CERTIFICATIONS, PRODUCT_TRANSLATIONS
from domain.masterdata.references import BRAND, REFERENCE_COLLECTIONS
from domain.masterdata.shipment_notices import SHIPMENT_NOTICE, SHIPMENT_NOTICE_LINE_ITEM

#: The collections of spec §4.1, served at `/items/<name>`.
ITEM_COLLECTIONS = (
    LOCATION,
    ORGANISATION,
    PRODUCT,
    BRAND,
    LOT,
    CERTIFICATION,
    SHIPMENT_NOTICE,
    IDENTIFIER_JOB,
    CODE_RESERVATION,
    UNIQUE_CODE,
    INTEGRITY_CHECK_RESULT,
    EPCIS_QUERIES,
    EPCIS_OUTBOUND_FLOW,
    EPCIS_CONNECTION,
)

#: Rows written through their parent item (translations, line items, junctions); they
#: can be read at `/items/<name>` too, as Directus serves every collection there.
DEPENDENT_COLLECTIONS = (
    LOCATION_TRANSLATIONS,
    ORGANISATION_TRANSLATIONS,
    PRODUCT_TRANSLATIONS,
    LOCATION_CERTIFICATIONS,
    ORGANISATION_CERTIFICATIONS,
    PRODUCT_CERTIFICATIONS,
    SHIPMENT_NOTICE_LINE_ITEM,
    # Kept by the resolver and by outbound flows, read-only.
    CODE_SCAN,
    EPCIS_OUTBOUND_FLOW_RUN,
    EPCIS_SUBSCRIPTION,
    # Standard code lists the service ships and keeps (ref_country, ref_uom, …), read-only.
    *REFERENCE_COLLECTIONS,
)

MASTER_DATA_COLLECTIONS = ITEM_COLLECTIONS + DEPENDENT_COLLECTIONS
