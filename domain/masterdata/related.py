"""The collections that hang off a master-data collection: its translations (one-to-many)
and its certifications (many-to-many through a junction)."""

from domain.collections.schema import Alias, Collection, Field, FieldType
from domain.masterdata.fields import INTEGER, STRING, TEXT, UUID


def translations_alias(collection: str) -> Alias:
    """`translations`: the rows of `<collection>_translations` that point at the item."""
    return Alias("translations", f"{collection}_translations", f"{collection}_id", writable=True)


def translations_collection(collection: str, key: FieldType, *texts: str) -> Collection:
    """`<collection>_translations`: one row per language with these text fields."""
    return Collection(
        name=f"{collection}_translations",
        primary_key="id",
        fields=(
            Field("id", INTEGER),
            Field(f"{collection}_id", key, relation=collection, required=True),
            Field("languages_code", STRING, required=True),
            *(Field(name, TEXT) for name in texts),
        ),
    )


def certifications_alias(collection: str, name: str = "certifications") -> Alias:
    """The junction rows that link the item to certifications (or, from a certification,
    to the items it covers)."""
    return Alias(name, f"{collection}_certifications", f"{collection}_id", writable=True)


def covered_alias(collection: str) -> Alias:
    """From a certification: the junction rows of the `collection` items it covers."""
    return Alias(
        f"covered_{collection}s", f"{collection}_certifications", "certification_id", writable=True
    )


def certifications_junction(collection: str, key: FieldType) -> Collection:
    """`<collection>_certifications`: which certifications cover which items."""
    return Collection(
        name=f"{collection}_certifications",
        primary_key="id",
        fields=(
            Field("id", INTEGER),
            Field(f"{collection}_id", key, relation=collection, required=True),
            Field("certification_id", UUID, relation="certification", required=True),
        ),
        junction=True,
    )
