"""Products: trade items with their GTIN, weights, measures and labels (spec §2 product)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import (
    AUDIT_FIELDS,
    BOOLEAN,
    FLOAT,
    JSON,
    STRING,
    UUID,
    country,
    numbers,
    strings,
    units,
)
from domain.masterdata.related import (
    certifications_alias,
    certifications_junction,
    translations_alias,
    translations_collection,
)

PRODUCT = Collection(
    name="product",
    primary_key="id",
    fields=(
        Field("id", STRING),
        Field("product_name", STRING),
        Field("brand", STRING, relation="brand"),
        Field("gtin", STRING),
        Field("custom_id", STRING),
        Field("digital_link", STRING),
        Field("product_redirection_url", STRING),
        Field("product_reference_document", UUID, relation="files"),
        Field("packaging_type_code", STRING, relation="ref_packaging_type_codes"),
        *strings("variant_description", "functional_name"),
        *numbers("net_weight", "gross_weight", "net_content", minimum=0),
        *units("net_weight_unit", "gross_weight_unit", "net_content_unit"),
        Field("third_party_product", BOOLEAN),
        Field("finished_product", BOOLEAN),
        Field("primary_image", UUID, relation="files"),
        Field("product_manufacturer", STRING, relation="organisation"),
        Field("brand_owner", STRING, relation="organisation"),
        Field("product_redirection_rule", STRING),
        Field("fat_percentage_in_dry_matter", FLOAT, minimum=0, maximum=100),
        Field("percentage_of_alcohol_by_volume", FLOAT, minimum=0, maximum=100),
        *numbers("nutrient_basis_quantity", "serving_size", minimum=0),
        Field("nutrient_basis_quantity_type", STRING),
        *units("nutrient_basis_quantity_unit", "serving_size_unit"),
        *numbers("in_package_height", "in_package_width", "in_package_depth", minimum=0),
        *units("in_package_height_unit", "in_package_width_unit", "in_package_depth_unit"),
        country("country_of_origin"),
        Field("parent_product", STRING, relation="product"),
        *strings("size", "target_consumer_gender", "season_code", "color"),
        # Nutrient records are not specified beyond their name: kept as JSON objects.
        Field("nutrients", JSON),
        # Not in the spec's product table; products follow it like locations do.
        Field("use_gs1_identifiers", BOOLEAN),
        *AUDIT_FIELDS,
    ),
    aliases=(translations_alias("product"), certifications_alias("product")),
    sort_field="date_created",
)

PRODUCT_TRANSLATIONS = translations_collection(
    "product",
    STRING,
    "product_description",
    "allergen_statement",
    "ingredient_statement",
    "product_content",
    "country_of_origin_statement",
    "ingredients_of_concern_statement",
)
PRODUCT_CERTIFICATIONS = certifications_junction("product", STRING)
