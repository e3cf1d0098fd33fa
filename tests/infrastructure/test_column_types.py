"""A table's column types as PostgreSQL names them, for statements that send one array a
column (infrastructure/column_types.py)."""

import psycopg
import pytest

from infrastructure.column_types import column_types

pytestmark = pytest.mark.postgres


def test_the_types_of_the_columns_asked_for_come_in_their_order(postgres_database: str) -> None:
    with psycopg.connect(postgres_database) as raw:
        raw.execute(
            'CREATE TEMPORARY TABLE measured (id BIGINT, "code" TEXT, weight DOUBLE PRECISION,'
            " unit VARCHAR(12))"
        )
        types = column_types(raw, "pg_temp", "measured", ("unit", "id", '"code"', "weight"))
    assert types == ("character varying(12)", "bigint", "text", "double precision")
