"""Locations: sites, plants, warehouses and their docks and bins (spec §2 location)."""

from domain.collections.schema import Alias, Collection, Field
from domain.gs1.digital_link import GS1_RESOLVER
from domain.gs1.epc import canonical_epc
from domain.gs1.identifiers import IdentifierError, location_path
from domain.masterdata.fields import (
    AUDIT_FIELDS,
    BOOLEAN,
    FLOAT,
    JSON,
    STRING,
    UUID,
    country,
    strings,
)
from domain.masterdata.related import (
    certifications_alias,
    certifications_junction,
    translations_alias,
    translations_collection,
)

LOCATION_ROLES = (
    "FARM",
    "MANUFACTURING_PLANT",
    "WAREHOUSE_AND_OR_DEPOT",
    "STORAGE_LOCATION",
    "STORE",
)

LOCATION = Collection(
    name="location",
    primary_key="id",
    fields=(
        Field("id", STRING),
        Field("location_name", STRING),
        Field("third_party_location", BOOLEAN),
        Field("timezone", STRING),
        Field("gln", STRING, lookup=True),
        Field("gln_extension", STRING),
        *strings("address", "city", "state", "county", "postal_code"),
        country("country_code"),
        *strings(
            "primary_contact_telephone",
            "primary_contact_type",
            "primary_contact_email",
            "primary_contact_title",
        ),
        Field("digital_link", STRING),
        Field("custom_id", STRING),
        Field("location_redirection_url", STRING),
        Field("primary_image", UUID, relation="files"),
        Field("location_role", JSON, array=True, choices=LOCATION_ROLES),
        Field("parent_location", STRING, relation="location"),
        Field("owning_organisation", STRING, relation="organisation"),
        Field("related_organisation", STRING, relation="organisation"),
        Field("latitude", FLOAT, minimum=-90, maximum=90),
        Field("longitude", FLOAT, minimum=-180, maximum=180),
        Field("map", JSON),
        Field("location_redirection_rule", STRING),
        Field("use_gs1_identifiers", BOOLEAN),
        *AUDIT_FIELDS,
    ),
    aliases=(
        translations_alias("location"),
        certifications_alias("location"),
        # The docks, lines and bins within this location.
        Alias("children", "location", "parent_location"),
    ),
    sort_field="date_created",
)

LOCATION_TRANSLATIONS = translations_collection(
    "location", STRING, "location_description", "location_content"
)
LOCATION_CERTIFICATIONS = certifications_junction("location", STRING)


def location_place(key: str, gln: str | None, gln_extension: str | None) -> str:
    """How events name the location (canonical EPC): its SGLN from `gln` and
    `gln_extension` when it has a GLN, else its id."""
    if gln:
        try:
            return GS1_RESOLVER.rstrip("/") + location_path(gln, gln_extension)
        except IdentifierError:
            # A GLN stored before it was checked names nothing an event could carry.
            pass
    return canonical_epc(key)
