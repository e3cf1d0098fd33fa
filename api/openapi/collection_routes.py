"""The operations of the collection views (`/items/<collection>`, the system collections,
`/files`, the history), one set per collection, generated from the catalogue."""

import re
from collections.abc import Iterator

from api.items.collection_views import ROUTES as VIEW_ROUTES
from api.items.collections import served_collections
from api.openapi.operation import Json, Operation, answer, answers, body, query
from api.openapi.shapes import data, field_value, listed, nullable, payload_schema
from domain.access.collections import FILES, ROUTED_COLLECTIONS
from domain.collections.item_query import EXPORT_FORMATS
from domain.collections.schema import Collection, FieldType, Schema
from domain.records.history import HISTORY_COLLECTIONS

ITEMS_BASE = "/items/{collection}"
_REGEX = re.compile(r"\{(\w+):[^{}]+\}")

#: The query parameters that shape the items a read answers (a list or one item).
SHAPE_QUERY = (
    query("fields", description="Fields to return, comma-separated; `*`, `relation.field`"),
    query(
        "deep",
        description="Queries of nested relations as JSON, e.g."
        ' {"translations": {"_filter": {"languages_code": {"_eq": "en"}}, "_limit": 1}}',
    ),
    query("alias", description='Other names for fields as JSON, e.g. {"english": "translations"}'),
    query(
        "export",
        {"type": "string", "enum": list(EXPORT_FORMATS)},
        "Answer a file of the items in this format instead of the envelope",
    ),
)
#: The global query parameters of a list (Directus's query language).
READ_QUERY = (
    *SHAPE_QUERY,
    query("filter", description='A filter as JSON, e.g. {"status": {"_eq": "active"}}'),
    query("search", description="Items with this text in a searched field"),
    query("sort", description="Fields to sort by, comma-separated; `-` for descending"),
    query("limit", {"type": "integer", "minimum": -1}, "Most items (-1: all)"),
    query("offset", {"type": "integer", "minimum": 0}, "Items to skip"),
    query("page", {"type": "integer", "minimum": 1}, "Page of `limit` items"),
    query("meta", {"type": "string", "enum": ["total_count", "filter_count", "*"]}),
    query("aggregate", description='Aggregates as JSON, e.g. {"count": ["*"]}'),
    query("groupBy", description="Fields to group aggregates by, comma-separated"),
)
#: The text files `export` answers; JSON and YAML hold the items without the envelope.
_EXPORT_TEXT = ("text/csv", "text/xml")
AS_OF = query("as_of", description="The item as it was then (ISO 8601 date-time)")


def collection_bases(schema: Schema) -> dict[str, tuple[str, ...]]:
    """Each base path the collection views serve, and the collections it stands for."""
    names = (*ROUTED_COLLECTIONS, FILES.name, *(c.name for c in HISTORY_COLLECTIONS))
    bases: dict[str, tuple[str, ...]] = {f"/{name}": (name,) for name in names}
    served = served_collections()
    bases[ITEMS_BASE] = tuple(c.name for c in schema if c.name in served)
    return bases


def view_of(method: str, path: str, bases: dict[str, tuple[str, ...]]) -> tuple[str, str] | None:
    """(base, view name) of a collection view's route, or None for another route."""
    for view_method, pattern, view in VIEW_ROUTES:
        # As the router names it: `/{key:.+}` is `/{key}`.
        suffix = _REGEX.sub(r"{\1}", pattern)
        base = path[: len(path) - len(suffix)]
        if view_method == method and path.endswith(suffix) and base in bases:
            return base, view
    return None


def expand(base: str, names: tuple[str, ...], suffix: str) -> Iterator[tuple[str, str]]:
    """(collection, path) of each collection a base stands for."""
    for name in names:
        yield name, base.replace("{collection}", name) + suffix


def collection_operation(view: str, collection: Collection, schema: Schema) -> Operation:
    """The operation of one view of one collection."""
    item: Json = {"$ref": f"#/components/schemas/{collection.name}"}
    key = field_value(collection.key)
    path = {"key": {"type": "integer"} if collection.key.type == FieldType.INTEGER else key}
    written = answers(
        answer(200, data(nullable({"anyOf": [item, {"type": "array", "items": item}]}))),
        answer(204, description="Written; the caller may not read it back"),
    )
    keys: Json = {"type": "array", "minItems": 1, "items": key}
    by_query: Json = {
        "type": "object",
        "properties": {"keys": keys, "query": {"type": "object"}},
        "minProperties": 1,
    }
    tag = collection.name
    if view == "list":
        return Operation(
            tag,
            _readable(listed(item), {"type": "array", "items": item}),
            f"List {tag}",
            query=READ_QUERY,
        )
    if view == "search":
        search = {
            "type": "object",
            "properties": {"query": {"type": "object"}, "keys": {"type": "array"}},
        }
        return Operation(tag, answer(200, listed(item)), f"Search {tag}", body=body(search))
    if view == "read":
        read = (*SHAPE_QUERY, AS_OF)
        return Operation(tag, _readable(data(item), item), f"Read one {tag}", query=read, path=path)
    if view == "create":
        one = payload_schema(collection, schema, create=True)
        many = {"anyOf": [one, {"type": "array", "items": one}]}
        return Operation(tag, written, f"Create {tag}", query=SHAPE_QUERY[:1], body=body(many))
    if view == "update_one":
        change = payload_schema(collection, schema, create=False)
        return Operation(tag, written, f"Update one {tag}", path=path, body=body(change))
    if view == "update_many":
        change = payload_schema(collection, schema, create=False)
        batch = {"anyOf": [{"type": "array", "items": change}, by_query]}
        return Operation(tag, written, f"Update several {tag}", body=body(batch))
    if view == "delete_one":
        return Operation(tag, answer(204), f"Delete one {tag}", path=path)
    if view == "delete_many":
        return Operation(
            tag, answer(204), f"Delete several {tag}", body=body({"anyOf": [keys, by_query]})
        )
    raise ValueError(f"no documentation for the collection view {view!r}")


def _readable(envelope: Json, exported: Json) -> Json:
    """A read's answer: the envelope, or the file `export` asks for (`exported` in JSON)."""
    json_answer = answer(200, {"anyOf": [envelope, exported]})
    content = json_answer["200"]["content"]
    content["text/yaml"] = {"schema": exported}
    content |= answer(200, {"type": "string"}, *_EXPORT_TEXT)["200"]["content"]
    return json_answer


def link_created(paths: dict[str, Json], schema: Schema, bases: dict[str, tuple[str, ...]]) -> None:
    """Link each create's answer to the read, update and delete of the item it made (the
    stateful tests of `make fuzz` follow them)."""
    for base, names in bases.items():
        for name, path in expand(base, names, ""):
            create, one = paths.get(path, {}).get("post"), paths.get(path + "/{key}", {})
            if create is None or "200" not in create["responses"]:
                continue
            key = f"$response.body#/data/{schema[name].primary_key}"
            links = {
                verb: {"operationId": one[method]["operationId"], "parameters": {"key": key}}
                for verb, method in (("read", "get"), ("update", "patch"), ("delete", "delete"))
                if method in one
            }
            if links:
                create["responses"]["200"] = {**create["responses"]["200"], "links": links}
