"""What EPCIS documents state, read by a JSON-LD processor (PyLD) without the network."""

import json
from functools import cache
from importlib import resources
from typing import Any

from pyld import jsonld

_EPCIS = "https://ref.gs1.org/epcis/"
#: The EPCIS 2.0.0 context as the reference hash package (MIT, a dev dependency) bundles it;
#: the GS1 repository's own copy is not under an open licence.
_CONTEXT_FILE = "e532647e8eb371379b8b0e8602d8981c8566bc60f7351f22c76a5bc865962008.jsonld"

#: A statement: a predicate IRI (or `@type`) and its value, itself statements for a node.
Statement = tuple[str, Any]


@cache
def _context() -> dict[str, Any]:
    text = resources.files("epcis_event_hash_generator").joinpath(_CONTEXT_FILE).read_text()
    context: dict[str, Any] = json.loads(text)
    return context


def _load(url: str, options: Any = None) -> dict[str, Any]:
    """Serves the EPCIS context, whichever ref.gs1.org version a document names."""
    if url.startswith("https://ref.gs1.org/standards/epcis/") and url.endswith(
        "/epcis-context.jsonld"
    ):
        return {"contextUrl": None, "documentUrl": url, "document": _context()}
    raise AssertionError(f"a test document names a context that is not at hand: {url}")


def expand(document: Any) -> list[Any]:
    """The JSON-LD expansion of `document`."""
    expanded: list[Any] = jsonld.expand(document, {"documentLoader": _load})
    return expanded


def event_statements(document: Any) -> list[tuple[str | None, frozenset[Statement]]]:
    """Each event of an EPCIS (query) document: its eventID, and what it states apart
    from eventID and recordTime (the repository's to give), as full IRIs."""
    return [(event.get("@id"), _statements(event, top=True)) for event in _events(expand(document))]


def _events(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [event for item in node for event in _events(item)]
    if not isinstance(node, dict):
        return []
    if _EPCIS + "eventList" in node:
        return list(node[_EPCIS + "eventList"])
    return [event for value in node.values() for event in _events(value)]


def _statements(node: dict[str, Any], top: bool = False) -> frozenset[Statement]:
    found: set[Statement] = set()
    for key, values in node.items():
        if top and key in ("@id", _EPCIS + "recordTime"):
            continue
        if key == "@id":
            found.add((key, values))
            continue
        for value in values if isinstance(values, list) else [values]:
            found.add((key, _value(value)))
    return frozenset(found)


def _value(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "@value" in value:
        return ("@value", value["@value"], value.get("@type"), value.get("@language"))
    if "@list" in value:
        return ("@list", tuple(_value(item) for item in value["@list"]))
    return _statements(value)
