"""The reference lists the master data points at (spec §2: ref_country, ref_uom,
ref_packaging_type_codes), and the brands users keep.

The reference lists are standard code lists: the service ships them and keeps their
tables (`projections.items.references`); no request writes them. Each is keyed by the
code itself, so a field holding a code is a many-to-one relation to its list.
"""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, STRING

#: ISO 3166-1 countries, keyed by their alpha-2 code: the form GS1 and the CBV use
#: (`cbvmda:countryCode`, `countryOfOrigin`).
REF_COUNTRY = Collection(
    name="ref_country",
    primary_key="code",
    fields=(
        Field("code", STRING),
        Field("name", STRING),
        Field("official_name", STRING),
        Field("alpha_3", STRING),
        # Three digits, leading zeros kept ("004"): text, as ISO writes it.
        Field("numeric", STRING),
    ),
    sort_field="code",
    read_only=True,
    search=("code", "name", "official_name", "alpha_3"),
)

#: UN/ECE Recommendation 20 units of measure, keyed by their common code (`KGM`, `CEL`):
#: the codes of EPCIS quantities and sensor reports.
REF_UOM = Collection(
    name="ref_uom",
    primary_key="code",
    fields=(Field("code", STRING), Field("name", STRING)),
    read_only=True,
)

#: GS1 packaging type codes (GS1 PackageTypeCode, after UN/ECE Recommendation 21).
REF_PACKAGING_TYPE_CODES = Collection(
    name="ref_packaging_type_codes",
    primary_key="code",
    fields=(Field("code", STRING), Field("packaging_type_name", STRING)),
    read_only=True,
)

#: Every reference list, each served at `/items/<name>` and read-only there.
REFERENCE_COLLECTIONS = (REF_COUNTRY, REF_UOM, REF_PACKAGING_TYPE_CODES)

#: Brands of products. A brand is keyed by its name, as GS1 states a brand (`brandName`
#: is text): a product's `brand` holds the brand's name, which is what EPCIS master data
#: answers as `gs1:brandName` and what a label shows.
BRAND = Collection(
    name="brand",
    primary_key="brand_name",
    fields=(Field("brand_name", STRING, required=True), *AUDIT_FIELDS),
    sort_field="brand_name",
)
