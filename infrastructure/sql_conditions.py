"""Conditions and parameter lists that the SQL of both backends shares: many values as
one parameter, `IN` lists, statements split under the drivers' limits, glob patterns."""

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from infrastructure.pg_arrays import encoded_array, integer_array
from infrastructure.sql_dialect import Dialect


def any_of(dialect: Dialect, column: str, values: Sequence[Any], params: list[Any]) -> str:
    """`column` equal to any of many values, as one parameter: an array on PostgreSQL, a
    JSON array on SQLite. For thousands of values, where `in_list` would need thousands
    of parameters (and statements)."""
    if dialect.name == "postgresql":
        params.append(integer_array(values))
        return f"{column} = ANY(?)"
    params.append(orjson.dumps(list(values)).decode())
    return f"{column} IN (SELECT value FROM json_each(?))"


def number_rows(dialect: Dialect, values: Sequence[int], params: list[Any]) -> str:
    """A row source `v` of the integers `values`, one a row in `v.value`, as one
    parameter (see `any_of`)."""
    if dialect.name == "postgresql":
        params.append(encoded_array(values, "bigint"))
        return "unnest(?::bigint[]) AS v(value)"
    params.append(orjson.dumps(list(values)).decode())
    return "json_each(?) AS v"


def in_list(column: str, values: Sequence[Any], params: list[Any]) -> str:
    """`column IN (?, ...)` for these values, appending them to `params`; an empty list
    matches nothing (`IN ()` is not SQL)."""
    params.extend(values)
    return f"{column} IN ({', '.join('?' * len(values)) or 'NULL'})"


def chunks(values: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """Split a long parameter list so no statement exceeds the driver's limits."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def any_glob(dialect: Dialect, column: str, globs: Sequence[Any], params: list[Any]) -> str:
    """`column` matching any of the patterns (see `glob_condition`), appending their
    parameters."""
    parts = []
    for glob in globs:
        sql, param = glob_condition(dialect, column, glob)
        parts.append(sql)
        params.append(param)
    return "(" + " OR ".join(parts) + ")"


def glob_condition(dialect: Dialect, column: str, glob: Sequence[Any]) -> tuple[str, str]:
    """SQL matching `column` against a pattern of literal text and wildcards.

    `glob` holds literal strings and wildcard markers whose `.name` is `ONE_CHAR` or
    `ANY`. A pattern that is literal text becomes an equality; one that is a literal
    prefix followed by ANY uses the column's index on both backends (GLOB on SQLite,
    LIKE under the C collation on PostgreSQL).
    """
    if len(glob) == 1 and isinstance(glob[0], str):
        return f"{column} = ?", glob[0]
    if dialect.name == "sqlite":
        # GLOB is case-sensitive (LIKE is not, in SQLite); brackets escape its wildcards.
        escape = str.maketrans({"*": "[*]", "?": "[?]", "[": "[[]"})
        marks = {"ONE_CHAR": "?", "ANY": "*"}
        text = "".join(p.translate(escape) if isinstance(p, str) else marks[p.name] for p in glob)
        return f"{column} GLOB ?", text
    escape = str.maketrans({"%": "\\%", "_": "\\_", "\\": "\\\\"})
    marks = {"ONE_CHAR": "_", "ANY": "%"}
    text = "".join(p.translate(escape) if isinstance(p, str) else marks[p.name] for p in glob)
    return f"{column} LIKE ? ESCAPE '\\'", text
