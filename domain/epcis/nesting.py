"""How deep a document nests: deeper than any EPCIS document needs is refused up front, as
the JSON encoder, the schema validator and the event hash each have a depth limit."""

from typing import Any

from domain.epcis.violations import Violation

#: Objects and arrays inside one another. EPCIS documents need about ten; the JSON encoder
#: stops at 255, and every stored event is encoded again.
MAX_NESTING = 128


def nesting_violation(document: Any, limit: int = MAX_NESTING) -> Violation | None:
    """A violation at the first place the document nests deeper than `limit`, or None."""
    # A stack, not recursion: the document may be as deep as its parser allowed.
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            continue
        if depth >= limit:
            # At the root whatever the place: the rest of the document goes unchecked, so
            # no part of it may be stored, whatever the error behaviour.
            return Violation(
                "(root)",
                f"The document nests objects and arrays deeper than {limit} levels (at {path})",
            )
        for key, child in children:
            stack.append((child, f"{path}.{key}" if path else str(key), depth + 1))
    return None
