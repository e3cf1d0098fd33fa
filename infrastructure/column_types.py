"""The types of a table's columns as PostgreSQL names them, for statements that send rows
as one array a column (`Connection.insert_many` in a pipeline), which must type them."""

from collections.abc import Sequence
from typing import Any

#: A table's column types are those of the release that made it: a projection whose
#: tables change shape comes with a new revision, and its tables are made again before
#: a process projects into them. So they are looked up once a process.
_known: dict[tuple[str, str, str, tuple[str, ...]], tuple[str, ...]] = {}


def column_types(raw: Any, schema: str, table: str, columns: Sequence[str]) -> tuple[str, ...]:
    """The type of each of `columns` of `table` (named as the statement names it, found
    by the connection's search path), e.g. `bigint`, `double precision`."""
    key = (str(raw.info.dbname), schema, table, tuple(columns))
    found = _known.get(key)
    if found is not None:
        return found
    rows = raw.execute(
        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
        " WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
        (table,),
    ).fetchall()
    named = {str(name): str(kind) for name, kind in rows}
    found = tuple(named[column.strip('"')] for column in columns)
    # Two threads may both look a table up at first: they find the same and store it.
    _known[key] = found
    return found
