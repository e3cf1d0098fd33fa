"""Organisations: suppliers, manufacturers, distributors, retailers (spec §2 organisation)."""

from domain.collections.schema import Collection, Field
from domain.masterdata.fields import AUDIT_FIELDS, BOOLEAN, JSON, STRING, UUID, country, strings
from domain.masterdata.related import (
    certifications_alias,
    certifications_junction,
    translations_alias,
    translations_collection,
)

ORGANISATION = Collection(
    name="organisation",
    primary_key="id",
    fields=(
        Field("id", STRING),
        Field("organisation_name", STRING),
        Field("organisation_company_prefix", STRING),
        # An open list in the spec ("e.g. DISTRIBUTOR, SUPPLIER..."): any strings.
        Field("organisation_role", JSON, array=True),
        Field("pgln", STRING, lookup=True),
        Field("custom_id", STRING),
        Field("digital_link", STRING),
        Field("organisation_redirection_url", STRING),
        *strings("address", "city", "state", "postal_code"),
        country("country_code"),
        *strings("primary_contact_telephone", "primary_contact_email", "primary_contact_url"),
        Field("use_gs1_identifiers", BOOLEAN),
        Field("parent_organisation", STRING, relation="organisation"),
        Field("primary_image", UUID, relation="files"),
        Field("organisation_redirection_rule", STRING),
        *AUDIT_FIELDS,
    ),
    aliases=(translations_alias("organisation"), certifications_alias("organisation")),
    sort_field="date_created",
)

ORGANISATION_TRANSLATIONS = translations_collection(
    "organisation", STRING, "organisation_description", "organisation_content"
)
ORGANISATION_CERTIFICATIONS = certifications_junction("organisation", STRING)
