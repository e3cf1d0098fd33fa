"""Columns sent as PostgreSQL binary arrays encoded a column at a time
(infrastructure/pg_arrays.py): PostgreSQL reads back what was encoded, and what the module
does not encode is left for psycopg."""

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infrastructure.pg_arrays import EncodedArray, encoded_array, integer_array

pytestmark = pytest.mark.postgres

# PostgreSQL's text holds no NUL; its float4 rounds to single precision.
_TEXTS = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "bigint": st.integers(-(2**63), 2**63 - 1),
    "integer": st.integers(-(2**31), 2**31 - 1),
    "smallint": st.integers(-(2**15), 2**15 - 1),
    "double precision": st.floats(allow_nan=False) | st.integers(-(2**53), 2**53),
    "boolean": st.booleans(),
    "text": _TEXTS,
    "bytea": st.binary(),
}


@pytest.fixture(scope="module")
def raw(postgres_database: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(postgres_database) as connection:
        yield connection


def _read_back(raw: psycopg.Connection[Any], encoded: EncodedArray, kind: str) -> Any:
    row = raw.execute(f"SELECT %b::{kind}[]", (encoded,), binary=True).fetchone()
    assert row is not None
    return row[0]


@pytest.mark.parametrize("kind", sorted(_VALUES))
def test_postgresql_reads_back_every_array_as_it_was_given(
    raw: psycopg.Connection[Any], kind: str
) -> None:
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(_VALUES[kind] | st.none(), max_size=20))
    def read_back(values: list[Any]) -> None:
        encoded = encoded_array(values, kind)
        assert isinstance(encoded, EncodedArray)
        expected = [float(v) if kind == "double precision" and v is not None else v for v in values]
        assert _read_back(raw, encoded, kind) == expected

    read_back()


def test_a_float4_array_reads_back_in_single_precision(raw: psycopg.Connection[Any]) -> None:
    encoded = encoded_array([1.5, -2.25, None, 3], "real")
    assert isinstance(encoded, EncodedArray)
    assert _read_back(raw, encoded, "real") == [1.5, -2.25, None, 3.0]


def test_an_array_holds_the_bytes_psycopg_would_send(raw: psycopg.Connection[Any]) -> None:
    # The same wire format: psycopg's own binary dumper of the same text list.
    texts = ["01/09521234543213/21/7", "é", ""]
    ours = encoded_array(texts, "text")
    dumper = psycopg.adapt.Transformer(raw).get_dumper(texts, psycopg.adapt.PyFormat.BINARY)
    assert bytes(ours) == bytes(dumper.dump(texts) or b"")


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([1, 2**63], "bigint"),  # out of the type's range
        ([1, 2**31], "integer"),
        ([1.5], "bigint"),  # not an integer
        (["1"], "smallint"),
        ([1, 0], "boolean"),  # numbers, not booleans
        ([1], "text"),  # not a text
        (["a"], "bytea"),  # not bytes
        ([{"a": 1}], "jsonb"),  # a type not encoded here
    ],
)
def test_what_is_not_encoded_is_left_to_psycopg_as_a_list(values: list[Any], kind: str) -> None:
    assert encoded_array(values, kind) == values


def test_rows_inserted_as_encoded_arrays_arrive_whole(raw: psycopg.Connection[Any]) -> None:
    raw.execute(
        "CREATE TEMPORARY TABLE arrived (position BIGINT, role SMALLINT, epc TEXT, prefix SMALLINT)"
    )
    rows = [(1, 0, "01/09521234543213/21/7", 7), (2, 3, "urn:example:x", None)]
    columns = [
        encoded_array(column, kind)
        for column, kind in zip(
            zip(*rows, strict=True), ("bigint", "smallint", "text", "smallint"), strict=True
        )
    ]
    raw.execute(
        "INSERT INTO arrived SELECT * FROM unnest(%b::bigint[], %b::smallint[], %b::text[],"
        " %b::smallint[])",
        columns,
    )
    assert raw.execute("SELECT * FROM arrived ORDER BY position").fetchall() == rows


@pytest.mark.parametrize(
    "values", [[1, 2, 3], [1, 70_000], [-40_000, 1], [1, 2**40], [-(2**63), 2**63 - 1], [5]]
)
def test_integers_without_a_cast_are_typed_as_psycopg_types_them(
    raw: psycopg.Connection[Any], values: list[int]
) -> None:
    # A statement's plan depends on its parameters' types: `column = ANY(%s)` keeps the
    # one a list of the same integers gets.
    ours = integer_array(values)
    assert isinstance(ours, EncodedArray)
    dumper = psycopg.adapt.Transformer(raw).get_dumper(values, psycopg.adapt.PyFormat.AUTO)
    assert ours.oid == dumper.oid
    row = raw.execute("SELECT %s", (ours,)).fetchone()
    assert row is not None
    assert row[0] == values


@pytest.mark.parametrize("values", [[], [1, "2"], [True, 1], [1, 2**70], [1, None], ["a"]])
def test_what_is_not_integers_alone_is_left_to_psycopg(values: list[Any]) -> None:
    assert integer_array(values) == values
