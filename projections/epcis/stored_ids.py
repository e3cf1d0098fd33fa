"""How the query tables hold identifiers: a GS1 key's canonical Digital Link without the
`https://id.gs1.org/` every one of them begins with.

EPCs, classes, lots and the lineage's items are most of the query tables' bytes, each in
a row and again in an index; the resolver was 19 of their ~45 characters. The encoding
is one-to-one, so every identifier reads back as it was indexed:

- `https://id.gs1.org/` followed by a digit (every GS1 key path begins with its AI) is
  kept without it: `01/09521234543213/21/7`;
- anything else that begins with a digit or `!` gets a `!` in front (no URI does; the
  rule keeps the encoding total);
- anything else is kept as it is.

Patterns are rewritten alike (`stored_glob`); the few that cannot be (one that begins
with a wildcard, or with only part of the resolver) match the decoded column instead.
"""

from collections.abc import Sequence
from typing import Any

from domain.gs1 import Glob
from domain.gs1.digital_link import GS1_RESOLVER
from infrastructure.sql_conditions import any_glob
from infrastructure.sql_dialect import Dialect

_DIGITS = frozenset("0123456789")
_ESCAPE = "!"
_CUT = len(GS1_RESOLVER)


def stored_id(canonical: str) -> str:
    """The form the query tables hold `canonical` (an identifier in its canonical form) in."""
    if canonical.startswith(GS1_RESOLVER) and canonical[_CUT : _CUT + 1] in _DIGITS:
        return canonical[_CUT:]
    if canonical[:1] in _DIGITS or canonical.startswith(_ESCAPE):
        return _ESCAPE + canonical
    return canonical


def canonical_id(stored: str) -> str:
    """The identifier the query tables hold as `stored`."""
    first = stored[:1]
    if first in _DIGITS:
        return GS1_RESOLVER + stored
    if first == _ESCAPE:
        return stored[1:]
    return stored


def stored_glob(glob: Glob) -> Glob | None:
    """The pattern over stored forms that matches what `glob` matches of canonical forms,
    or None when there is none (see `decoded_sql`)."""
    head = glob[0]
    if not isinstance(head, str):
        return None
    if len(glob) == 1:
        return (stored_id(head),)
    if head.startswith(GS1_RESOLVER):
        if len(head) == _CUT:
            return None  # GS1 keys and other texts after the resolver alike
        if head[_CUT] in _DIGITS:
            return (head[_CUT:], *glob[1:])
        return glob  # kept as they are: those texts are never cut
    if GS1_RESOLVER.startswith(head):
        return None
    if head[:1] in _DIGITS or head.startswith(_ESCAPE):
        return (_ESCAPE + head, *glob[1:])
    return glob


def decoded_sql(column: str) -> str:
    """SQL of the canonical form of a stored identifier column (it uses no index)."""
    digits = ", ".join(f"'{d}'" for d in sorted(_DIGITS))
    return (
        f"(CASE WHEN substr({column}, 1, 1) IN ({digits}) THEN '{GS1_RESOLVER}' || {column}"
        f" WHEN substr({column}, 1, 1) = '{_ESCAPE}' THEN substr({column}, 2)"
        f" ELSE {column} END)"
    )


def matching_any(dialect: Dialect, column: str, globs: Sequence[Glob], params: list[Any]) -> str:
    """`column` (stored identifiers) matching any of the patterns over canonical forms,
    appending their parameters; through the column's index wherever the pattern allows."""
    rewritten = [stored_glob(glob) for glob in globs]
    indexed = [glob for glob in rewritten if glob is not None]
    decoded = [glob for glob, stored in zip(globs, rewritten, strict=True) if stored is None]
    parts = [any_glob(dialect, column, indexed, params)] if indexed else []
    if decoded:
        parts.append(any_glob(dialect, decoded_sql(column), decoded, params))
    if len(parts) == 1:
        return parts[0]
    return "(" + " OR ".join(parts) + ")" if parts else "1 = 0"
