"""The catalogue as Directus describes a schema: collections (`directus_collections`),
fields (`directus_fields`) and relations (`directus_relations`).

The one mapping from our `Collection`, `Field` and `Alias` to Directus's shapes: the
discovery endpoints serve it, and the OpenAPI document draws on it. System collections
appear under their Directus names (`directus_users`), everything else under its own.
"""

from typing import Any

from application.items.catalogue import DIRECTUS_NAMES, directus_name
from application.items.relations import owned
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema

Description = dict[str, Any]

#: What a read-model column holds for each type (see FieldType), as `schema.data_type`.
_DATA_TYPES = {
    FieldType.INTEGER: "bigint",
    FieldType.FLOAT: "real",
    FieldType.BOOLEAN: "integer",
}

#: The interface the Directus app would edit a field of each type with.
_INTERFACES = {
    FieldType.TEXT: "input-multiline",
    FieldType.BOOLEAN: "boolean",
    FieldType.DATETIME: "datetime",
    FieldType.DATE: "datetime",
    FieldType.JSON: "input-code",
    FieldType.HASH: "input-hash",
}

#: The audit fields the service stamps, with the `special` Directus gives them.
_AUDIT_SPECIALS = {
    "user_created": "user-created",
    "date_created": "date-created",
    "user_updated": "user-updated",
    "date_updated": "date-updated",
}


def directus_type(field: Field | Alias) -> str:
    """Directus's type of a field: our type names are Directus's; a to-many relation
    without a column is an `alias`."""
    return "alias" if isinstance(field, Alias) else field.type.value


def is_system(collection: Collection) -> bool:
    """Whether Directus clients know the collection as a system collection."""
    return collection.name in DIRECTUS_NAMES


def collection_description(collection: Collection) -> Description:
    """A collection as `/collections` lists it."""
    name = directus_name(collection.name)
    sort_field = collection.sort_field if collection.sort_field != collection.primary_key else None
    return {
        "collection": name,
        "meta": {
            "collection": name,
            "icon": None,
            "note": None,
            "display_template": None,
            # Junction rows are reached through the items they link.
            "hidden": collection.junction,
            "singleton": False,
            "translations": None,
            "archive_field": None,
            "archive_app_filter": True,
            "archive_value": None,
            "unarchive_value": None,
            "sort_field": sort_field,
            "accountability": "all",
            "color": None,
            "item_duplication_fields": None,
            "sort": None,
            "group": None,
            "collapse": "open",
            "preview_url": None,
            "versioning": False,
            "system": is_system(collection),
        },
        "schema": {"name": name, "comment": None},
    }


def field_descriptions(schema: Schema, collection: Collection) -> list[Description]:
    """Every field of a collection as `/fields/<collection>` lists them: its stored fields,
    then its to-many relations."""
    described = [_field(schema, collection, f, sort) for sort, f in enumerate(collection.fields)]
    start = len(collection.fields)
    described += [
        _alias(schema, collection, a, start + sort) for sort, a in enumerate(collection.aliases)
    ]
    return described


def relation_descriptions(schema: Schema, collection: Collection) -> list[Description]:
    """The relations of a collection's many-to-one fields, as `/relations` lists them."""
    return [
        _relation(collection, f, schema[f.relation])
        for f in collection.fields
        if f.relation is not None
    ]


def _field(schema: Schema, collection: Collection, field: Field, sort: int) -> Description:
    name = directus_name(collection.name)
    primary = field.name == collection.primary_key
    related = schema[field.relation] if field.relation is not None else None
    return {
        "collection": name,
        "field": field.name,
        "type": directus_type(field),
        "schema": {
            "name": field.name,
            "table": name,
            "data_type": _DATA_TYPES.get(field.type, "text"),
            "default_value": field.default,
            "max_length": None,
            "numeric_precision": None,
            "numeric_scale": None,
            "is_generated": False,
            "generation_expression": None,
            "is_nullable": not (primary or field.required),
            "is_unique": primary or field.unique,
            "is_indexed": primary or field.unique or field.lookup or related is not None,
            "is_primary_key": primary,
            "has_auto_increment": primary and field.type is FieldType.INTEGER,
            "foreign_key_table": directus_name(related.name) if related else None,
            "foreign_key_column": related.primary_key if related else None,
            "comment": None,
        },
        "meta": {
            **_meta(collection, field.name, sort),
            "special": _specials(collection, field) or None,
            "interface": _interface(field),
            "options": _options(field),
            "readonly": field.readonly,
            # A secret the service keeps (a TFA secret) is neither shown nor edited.
            "hidden": field.concealed and field.readonly,
            "required": field.required,
        },
    }


def _interface(field: Field) -> str:
    """How the Directus app would edit the field."""
    if field.choices:
        return "select-multiple-dropdown" if field.array else "select-dropdown"
    if field.array:
        return "tags"
    if field.relation is not None:
        return "file" if field.relation == "files" else "select-dropdown-m2o"
    return _INTERFACES.get(field.type, "input")


def _options(field: Field) -> dict[str, Any] | None:
    """The interface's options: an enumeration's choices, a number's bounds."""
    if field.choices:
        return {"choices": [{"text": c, "value": c} for c in field.choices]}
    if field.minimum is not None or field.maximum is not None:
        return {"min": field.minimum, "max": field.maximum}
    return None


def _alias(schema: Schema, collection: Collection, alias: Alias, sort: int) -> Description:
    name = directus_name(collection.name)
    many = schema[alias.collection].junction
    return {
        "collection": name,
        "field": alias.name,
        "type": directus_type(alias),
        "schema": None,
        "meta": {
            **_meta(collection, alias.name, sort),
            "special": ["m2m" if many else "o2m"],
            "interface": "list-m2m" if many else "list-o2m",
            "options": None,
            "readonly": not alias.writable,
            "hidden": False,
            "required": False,
        },
    }


def _meta(collection: Collection, field: str, sort: int) -> Description:
    """What every field's `meta` holds the same way."""
    return {
        "collection": directus_name(collection.name),
        "field": field,
        "display": None,
        "display_options": None,
        "sort": sort + 1,
        "width": "full",
        "translations": None,
        "note": None,
        "conditions": None,
        "group": None,
        "validation": None,
        "validation_message": None,
        "searchable": True,
        # Directus marks its own fields and leaves the flag out elsewhere.
        **({"system": True} if is_system(collection) else {}),
    }


def _specials(collection: Collection, field: Field) -> list[str]:
    """Directus's `special` flags: how a value is generated, cast or hidden."""
    specials = []
    if field.name == collection.primary_key and field.type is FieldType.UUID:
        specials.append("uuid")
    if field.readonly and field.name in _AUDIT_SPECIALS:
        specials.append(_AUDIT_SPECIALS[field.name])
    elif field.relation is not None:
        specials.append("file" if field.relation == "files" else "m2o")
    if field.type is FieldType.HASH:
        specials.append("hash")
    if field.concealed:
        specials.append("conceal")
    if field.type is FieldType.JSON:
        specials.append("cast-json")
    if field.type is FieldType.BOOLEAN:
        specials.append("cast-boolean")
    return specials


def _relation(collection: Collection, field: Field, related: Collection) -> Description:
    alias = _one_side(related, collection, field)
    many, one = directus_name(collection.name), directus_name(related.name)
    cascades = owned(collection, field.name)
    if collection.read_only or collection.bulk:
        on_delete = "NO ACTION"  # history and generated codes keep what they named
    else:
        on_delete = "CASCADE" if cascades else "SET NULL"
    return {
        "collection": many,
        "field": field.name,
        "related_collection": one,
        "schema": {
            "table": many,
            "column": field.name,
            "foreign_key_table": one,
            "foreign_key_column": related.primary_key,
            "constraint_name": None,
            "on_update": "NO ACTION",
            "on_delete": on_delete,
        },
        "meta": {
            "many_collection": many,
            "many_field": field.name,
            "one_collection": one,
            "one_field": alias.name if alias else None,
            "one_collection_field": None,
            "one_allowed_collections": None,
            "junction_field": _junction_field(collection, field, alias),
            "sort_field": None,
            "one_deselect_action": "delete" if cascades else "nullify",
            "system": is_system(collection),
        },
    }


def _one_side(related: Collection, collection: Collection, field: Field) -> Alias | None:
    """The to-many relation on the related collection that this field makes (the first,
    where two share it: a policy's `users` and `roles` both go through `access.policy`)."""
    return next(
        (
            a
            for a in related.aliases
            if a.collection == collection.name and a.foreign_key == field.name
        ),
        None,
    )


def _junction_field(collection: Collection, field: Field, alias: Alias | None) -> str | None:
    """In a junction, the field that leads on to the far side of the many-to-many: the
    one the alias requires, or else the junction's one other required relation."""
    if not collection.junction:
        return None
    if alias is not None and alias.requires is not None:
        return alias.requires
    others = [
        f.name
        for f in collection.fields
        if f.relation is not None and f.name != field.name and f.required
    ]
    return others[0] if len(others) == 1 else None
