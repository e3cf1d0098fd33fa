"""JSON Schemas of what the API sends and takes: the items of each collection (from the
catalogue), the two families' envelopes and error shapes."""

from typing import Any

from api.platform.responses import STATUS
from domain.collections.schema import Collection, Field, FieldType, Schema

Json = dict[str, Any]

#: The schema of each field type, as a value of it reads back.
_TYPES: dict[FieldType, Json] = {
    FieldType.UUID: {"type": "string"},
    FieldType.STRING: {"type": "string"},
    FieldType.TEXT: {"type": "string"},
    FieldType.INTEGER: {"type": "integer"},
    FieldType.FLOAT: {"type": "number"},
    FieldType.BOOLEAN: {"type": "boolean"},
    FieldType.DATETIME: {"type": "string", "description": "UTC, YYYY-MM-DDTHH:MM:SS.mmmZ"},
    FieldType.DATE: {"type": "string", "description": "YYYY-MM-DD"},
    FieldType.JSON: {},
    FieldType.HASH: {"type": "string", "description": 'Reads back as "**********"'},
}

#: The formats a payload's values take (answers are not held to them).
_FORMATS = {FieldType.UUID: "uuid", FieldType.DATETIME: "date-time", FieldType.DATE: "date"}

#: Directus's error envelope, the platform API's answer to every failure.
PLATFORM_ERROR: Json = {
    "type": "object",
    "required": ["errors"],
    "properties": {
        "errors": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["message", "extensions"],
                "properties": {
                    "message": {"type": "string"},
                    "extensions": {
                        "type": "object",
                        "required": ["code"],
                        "properties": {
                            "code": {
                                "type": "string",
                                "enum": sorted({*STATUS, "INTERNAL_SERVER_ERROR"}),
                            }
                        },
                    },
                },
            },
        }
    },
}

#: An EPCIS exception: RFC 7807 problem details whose type names the EPCIS exception.
PROBLEM: Json = {
    "type": "object",
    "required": ["type", "title", "status"],
    "properties": {
        "type": {"type": "string", "pattern": "^epcisException:[A-Za-z]+$"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
    },
}


def nullable(schema: Json) -> Json:
    """The schema, or null."""
    if not schema:
        return {}
    return {"anyOf": [schema, {"type": "null"}]}


def field_value(field: Field) -> Json:
    """A field's own value (a relation's key, not the related item)."""
    schema = dict(_TYPES[field.type])
    if field.decimal_text:
        schema = {"type": ["number", "string"]}
    if field.array:
        items: Json = {"type": "string"}
        if field.choices:
            items["enum"] = list(field.choices)
        return {"type": "array", "items": items}
    if field.choices:
        schema["enum"] = list(field.choices)
    return schema


def _related(key: Json, target: str) -> Json:
    """A relation as it reads back: the key, or the related item when `fields` expands it."""
    return {"anyOf": [key, {"$ref": f"#/components/schemas/{target}"}]}


def item_schema(collection: Collection, schema: Schema) -> Json:
    """An item as the API reads it back. `fields` picks any subset and expands relations,
    so no property is required, each may be null, and aggregates add others."""
    properties: Json = {}
    for field in collection.fields:
        value = field_value(field)
        if field.concealed:
            value = {"type": "string"}
        elif field.relation is not None and not field.array:
            value = _related(value, field.relation)
        properties[field.name] = nullable(value)
    for alias in collection.aliases:
        key = field_value(schema[alias.collection].key)
        related = _related(key, alias.collection)
        properties[alias.name] = nullable({"type": "array", "items": related})
    return {"type": "object", "title": collection.name, "properties": properties}


def payload_schema(collection: Collection, schema: Schema, *, create: bool) -> Json:
    """What a create (or update) takes: the writable fields, relations by key."""
    properties: Json = {}
    for field in collection.fields:
        if field.readonly:
            continue
        value = field_value(field)
        if field.type in _FORMATS and not field.array:
            value["format"] = _FORMATS[field.type]
        if field.minimum is not None:
            value["minimum"] = field.minimum
        if field.maximum is not None:
            value["maximum"] = field.maximum
        properties[field.name] = value if field.required and create else nullable(value)
    for alias in collection.aliases:
        if alias.writable:
            properties[alias.name] = {"type": "array"}
    required = [f.name for f in collection.fields if f.required and create and not f.readonly]
    body: Json = {"type": "object", "properties": properties}
    if required:
        body["required"] = required
    return body


def data(schema: Json) -> Json:
    """The platform's success envelope around `schema`."""
    return {"type": "object", "required": ["data"], "properties": {"data": schema}}


#: `meta` of a list, when asked for.
META: Json = {
    "type": "object",
    "properties": {"total_count": {"type": "integer"}, "filter_count": {"type": "integer"}},
}


def listed(item: Json) -> Json:
    """The platform's list envelope: `data` and, when asked for, `meta`."""
    envelope = data({"type": "array", "items": item})
    envelope["properties"]["meta"] = META
    return envelope
