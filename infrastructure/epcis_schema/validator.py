"""Checks EPCIS 2.0 documents against Tracepoint's own JSON Schema and words each violation."""

import functools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import resources
from typing import Any, Literal

import jsonschema_rs
from jsonschema_rs import ValidationError, ValidationErrorKind

from domain.epcis.violations import Violation

SCHEMA_FILE = "epcis-2.0.schema.json"
DocumentKind = Literal["captureDocument", "EPCISDocument", "EPCISQueryDocument"]

_ROOT = "(root)"
_SHOWN_CHARACTERS = 80
_Path = list[str | int]
_Located = tuple[_Path, str]


def load_schema() -> dict[str, Any]:
    """The EPCIS 2.0 JSON Schema (draft 7) shipped as data of this package."""
    text = resources.files(__package__ or __name__).joinpath(SCHEMA_FILE).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def document_schema(kind: DocumentKind, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A schema for one kind of document, sharing the definitions of the full schema.

    `captureDocument` is an EPCISDocument that also refuses a query result in one sentence.
    """
    return _schema_for(kind, load_schema() if schema is None else schema)


def _schema_for(definition: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "$schema": schema["$schema"],
        "$id": schema["$id"],
        "definitions": schema["definitions"],
        # allOf rather than a bare $ref: draft 7 ignores every keyword beside a $ref.
        "allOf": [{"$ref": f"#/definitions/{definition}"}],
    }


class DocumentValidator:
    """Validates EPCIS documents: the Rust validator decides, violations are worded for people."""

    def __init__(self) -> None:
        self._capture, self._query = _checks()

    def validate_capture(self, document: object) -> list[Violation]:
        """Every violation in a document sent for capture; [] means a valid EPCISDocument."""
        return self._capture.violations(document)

    def validate_query_document(self, document: object) -> list[Violation]:
        """Every violation in an EPCISQueryDocument; [] means it is valid."""
        return self._query.violations(document)


@functools.cache
def _checks() -> tuple["_SchemaCheck", "_SchemaCheck"]:
    # Compiled once a process (milliseconds each time a service starts); the compiled
    # validators hold no state.
    schema = load_schema()
    return (
        _SchemaCheck("captureDocument", schema, ("epcisBody", "eventList")),
        _SchemaCheck(
            "EPCISQueryDocument", schema, ("epcisBody", "queryResults", "resultsBody", "eventList")
        ),
    )


class _SchemaCheck:
    """One kind of document, checked whole; when invalid, explained envelope and event apart.

    jsonschema-rs turns the value at each error into JSON, and for an error on the document
    itself that value is every event: explaining a 10,000-event document without @context
    would take a second. So the envelope is explained with its events blanked out, and the
    events one at a time.
    """

    def __init__(
        self, kind: DocumentKind, schema: Mapping[str, Any], events_at: tuple[str, ...]
    ) -> None:
        envelope = {**schema, "definitions": {**schema["definitions"], "event": True}}
        self._schema = schema
        self._events_at = events_at
        self._whole = _compiled(_schema_for(kind, schema))
        self._envelope = _compiled(_schema_for(kind, envelope))
        self._event = _compiled(_schema_for("event", schema))

    def violations(self, document: object) -> list[Violation]:
        try:
            # is_valid stops at the first error, so the usual valid document costs one pass.
            if self._whole.is_valid(document):
                return []
            located = list(self._explained(document))
        except (TypeError, ValueError) as exc:
            return [Violation(_ROOT, f"The document is not JSON data: {exc}")]
        return _ordered(document, located)

    def _explained(self, document: object) -> Iterator[_Located]:
        split = _without_events(document, self._events_at)
        if split is None:
            yield from _worded(self._whole.iter_errors(document), self._schema)
            return
        envelope, events = split
        yield from _worded(self._envelope.iter_errors(envelope), self._schema)
        for index, event in enumerate(events):
            if not self._event.is_valid(event):
                prefix: _Path = [*self._events_at, index]
                for path, reason in _worded(self._event.iter_errors(event), self._schema):
                    yield [*prefix, *path], reason


def _compiled(schema: dict[str, Any]) -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft7Validator(schema, validate_formats=True)


def _without_events(document: object, events_at: Sequence[str]) -> tuple[object, list[Any]] | None:
    """A shallow copy of the envelope with placeholders for the events, and the events."""
    if not events_at:
        return ([None] * len(document), document) if isinstance(document, list) else None
    if not isinstance(document, dict) or events_at[0] not in document:
        return None
    inner = _without_events(document[events_at[0]], events_at[1:])
    if inner is None:
        return None
    return {**document, events_at[0]: inner[0]}, inner[1]


def _worded(errors: Iterable[ValidationError], schema: Mapping[str, Any]) -> Iterator[_Located]:
    for error in errors:
        node = _schema_node(schema, error.schema_path[:-1])
        path = list(error.instance_path)
        if isinstance(error.kind, ValidationErrorKind.AdditionalProperties):
            # One violation per unexpected property, located at the property itself.
            for name in error.kind.unexpected:
                yield [*path, name], _unexpected_property(name, node)
        else:
            yield path, _reason(error, node)


def _ordered(document: object, located: Iterable[_Located]) -> list[Violation]:
    seen: dict[tuple[str, str], tuple[tuple[int, ...], Violation]] = {}
    for path, reason in located:
        violation = Violation(_location(path), reason)
        key = (violation.location, violation.reason)
        if key not in seen:
            seen[key] = (_document_position(document, path), violation)
    # sorted() is stable, so problems at one location keep the schema's order.
    return [violation for _, violation in sorted(seen.values(), key=lambda item: item[0])]


def _location(path: Sequence[str | int]) -> str:
    return ".".join(str(part) for part in path) if path else _ROOT


def _document_position(document: object, path: Sequence[str | int]) -> tuple[int, ...]:
    position: list[int] = []
    node = document
    for part in path:
        if isinstance(node, Mapping) and part in node:
            position.append(list(node).index(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            position.append(part)
            node = node[part]
        else:
            position.append(len(node) if isinstance(node, Mapping | list) else 0)
            node = None
    return tuple(position)


def _schema_node(schema: Mapping[str, Any], path: Sequence[str | int]) -> Mapping[str, Any]:
    node: Any = schema
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return {}
    return node if isinstance(node, Mapping) else {}


def _unexpected_property(name: str, node: Mapping[str, Any]) -> str:
    owner = node.get("x-name", "this object")
    if "patternProperties" in node:
        return (
            f"'{name}' is not a field of {owner}; user extension fields need a namespace "
            f"prefix declared in @context, e.g. 'example:{name}'"
        )
    return f"'{name}' is not a field of {owner}"


def _reason(error: ValidationError, node: Mapping[str, Any]) -> str:
    keyword = error.schema_path[-1] if error.schema_path else ""
    custom = node.get("x-messages", {}).get(keyword)
    value = _shown(error.instance)
    if isinstance(custom, str):
        return custom.replace("{value}", value)
    kind = error.kind
    match kind:
        case ValidationErrorKind.Required():
            return f"'{kind.property}' is a required property"
        case ValidationErrorKind.Enum():
            return f"{value} is not one of {kind.options!r}"
        case ValidationErrorKind.Constant():
            return f"{_shown(kind.expected_value)} was expected, not {value}"
        case ValidationErrorKind.Type():
            expected = " or ".join(f"'{name}'" for name in kind.types)
            return f"{value} is not of type {expected}"
        case ValidationErrorKind.Format():
            return f"{value} does not match format '{kind.format}'"
        case ValidationErrorKind.Pattern():
            if "x-format" in node:
                return f"{value} does not match format '{node['x-format']}'"
            return f"{value} does not match {kind.pattern!r}"
        case ValidationErrorKind.MinItems():
            return f"Expected at least {kind.limit} item(s)"
        case ValidationErrorKind.MinLength():
            return f"{value} is shorter than {kind.limit} character(s)"
        case ValidationErrorKind.UniqueItems():
            return "Has duplicate items"
        case ValidationErrorKind.AnyOf() | ValidationErrorKind.OneOfNotValid():
            return "Does not match any of the allowed forms"
        case ValidationErrorKind.Not() | ValidationErrorKind.FalseSchema():
            return "Is not allowed here"
        case _:
            return error.message


def _shown(value: object) -> str:
    text = repr(value)
    if len(text) > _SHOWN_CHARACTERS:
        return text[: _SHOWN_CHARACTERS - 3] + "..."
    return text
