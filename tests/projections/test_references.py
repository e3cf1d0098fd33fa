"""The reference lists' tables: filled from the lists the service ships, never from the
log, and filled anew when a list changes (a newer pycountry, a newer units file)."""

from collections.abc import Sequence

import pytest

from application.service.runtime import Tracepoint
from domain.collections.schema import Collection
from infrastructure.reference_data import Row, reference_rows
from infrastructure.settings import Settings
from projections.items.references import ReferenceProjection
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


def codes(service: Tracepoint, table: str) -> set[str]:
    with service.database.transaction(write=False) as conn:
        return {row[0] for row in conn.fetchall(f'SELECT "code" FROM "{table}"')}


def test_the_tables_hold_the_lists_the_service_ships(settings: Settings) -> None:
    service = Tracepoint(settings)
    assert {"GB", "FR", "DE"} <= codes(service, "ref_country")
    assert {"KGM", "CEL", "MTR"} <= codes(service, "ref_uom")
    assert {"BX", "PX", "CS"} <= codes(service, "ref_packaging_type_codes")
    service.close()


def test_a_changed_list_is_filled_anew_on_the_next_start(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    Tracepoint(settings).close()

    def with_a_new_unit(collection: Collection) -> Sequence[Row]:
        rows = reference_rows(collection)
        if collection.name == "ref_uom":
            rows = (*rows, {"code": "ZZZ", "name": "a unit of a later revision"})
        return rows

    monkeypatch.setattr("application.service.runtime.reference_rows", with_a_new_unit)
    upgraded = Tracepoint(settings)
    assert "ZZZ" in codes(upgraded, "ref_uom")
    assert (
        len(codes(upgraded, "ref_uom")) == len(reference_rows(upgraded.core.schema["ref_uom"])) + 1
    )
    upgraded.close()


def test_the_projection_reads_no_event(settings: Settings) -> None:
    service = Tracepoint(settings)
    references = next(
        p for p in service.projections.projections if isinstance(p, ReferenceProjection)
    )
    assert references.follows == ()
    service.projections.catch_up()
    assert service.projections.position(references) == service.store.max_position()
    service.close()
