"""The projection runner: exactly once, across crashes, concurrent runners and replays."""

import dataclasses
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from domain.collections.schema import FieldType
from domain.epcis.captured_event import CapturedEvent
from infrastructure.event_store import DuplicateAggregate
from infrastructure.settings import Settings
from projections.epcis.events import EpcisEventsProjection
from projections.items.records import RecordsProjection
from projections.projection import Projection
from tests.conftest import make_settings
from tests.epcis.documents import object_event


def captured(n: int, capture_id: str = "c1", first: int = 0) -> list[CapturedEvent]:
    """`n` events of one capture, numbered from `first`."""
    return [
        CapturedEvent(
            event_id=f"urn:uuid:00000000-0000-4000-8000-{i:012d}",
            epcis_event=object_event(),
            namespaces={},
            record_time="2024-03-01T10:00:00.000Z",
            capture_id=capture_id,
        )
        for i in range(first, first + n)
    ]


def count(service: Tracepoint, table: str) -> int:
    with service.database.transaction(write=False) as conn:
        return int(conn.fetchval(f"SELECT COUNT(*) FROM {table}"))


def positions(service: Tracepoint) -> list[int]:
    with service.database.transaction(write=False) as conn:
        return [r[0] for r in conn.fetchall("SELECT position FROM epcis_events ORDER BY position")]


@pytest.fixture
def small_batches(database_url: str, service_tables: Callable[[Settings], Settings]) -> Settings:
    return service_tables(make_settings(database_url, projection_batch_size=4))


def test_catch_up_writes_every_stored_event_once(small_batches: Settings) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(10))
    service.projections.catch_up()
    service.projections.catch_up()
    assert count(service, "epcis_events") == 10
    assert count(service, "epcis_event_epcs") == 10
    service.close()


def test_a_crash_inside_a_batch_loses_and_doubles_nothing(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(small_batches)
    # Two captures: a batch never ends inside one.
    service.store.save(*captured(4, "a"))
    service.store.save(*captured(6, "b", first=4))
    original = EpcisEventsProjection.apply
    calls = {"n": 0}

    def crash_in_second_batch(self: EpcisEventsProjection, conn: Any, events: Any) -> None:
        calls["n"] += 1
        original(self, conn, events)  # rows are written ...
        if calls["n"] == 2:
            raise RuntimeError("power cut")  # ... and the process dies before commit

    monkeypatch.setattr(EpcisEventsProjection, "apply", crash_in_second_batch)
    with pytest.raises(RuntimeError):
        service.projections.catch_up()
    assert count(service, "epcis_events") == 4
    service.close()

    monkeypatch.setattr(EpcisEventsProjection, "apply", original)
    restarted = Tracepoint(small_batches)
    restarted.projections.catch_up()
    assert count(restarted, "epcis_events") == 10
    assert count(restarted, "epcis_event_epcs") == 10
    assert positions(restarted) == sorted(set(positions(restarted)))
    restarted.close()


def test_events_stored_while_the_projector_was_down_are_projected_on_restart(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(3))
    service.projections.catch_up()
    service.store.save(*captured(5)[3:])  # two more, never projected
    service.close()
    restarted = Tracepoint(small_batches)
    restarted.projections.catch_up()
    assert count(restarted, "epcis_events") == 5
    restarted.close()


def test_two_runners_on_one_database_apply_each_event_once(small_batches: Settings) -> None:
    first = Tracepoint(small_batches)
    second = Tracepoint(small_batches)
    for k in range(5):  # five captures, so the runners race over several batches
        first.store.save(*captured(4, f"c{k}", first=4 * k))
    threads = [threading.Thread(target=s.projections.catch_up) for s in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert count(first, "epcis_events") == 20
    assert count(first, "epcis_event_epcs") == 20
    first.close()
    second.close()


def test_rebuild_drops_and_rebuilds_the_same_rows(small_batches: Settings) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(9))
    service.projections.catch_up()
    with service.database.transaction(write=False) as conn:
        before = conn.fetchall("SELECT * FROM epcis_events ORDER BY position")
    applied: list[int] = []
    service.projections.rebuild(applied.append)
    with service.database.transaction(write=False) as conn:
        after = conn.fetchall("SELECT * FROM epcis_events ORDER BY position")
    assert after == before
    assert sum(applied) >= 9
    service.close()


def append_and_project(
    service: Tracepoint, events: list[CapturedEvent], *, pipelined: bool = False
) -> tuple[int, bool]:
    """Append `events` and project them inline, in one transaction, as capture does;
    the last position and whether they were projected inline."""
    with service.database.transaction(pipelined=pipelined) as conn:
        service.store.lock_within(conn)
        saved = service.store.append_within(conn, *events)
        projected = service.projections.apply_within(conn, saved)
    if projected:
        service.projections.applied(saved)
    return saved[-1].position, projected


def test_appended_events_are_projected_in_their_own_transaction(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()
    last, projected = append_and_project(service, captured(6))
    assert projected is True
    assert count(service, "epcis_events") == 6
    assert service.projections.reached == last
    service.close()


@pytest.mark.parametrize("pipelined", [False, True])
def test_appended_events_that_do_not_follow_what_was_applied_are_left_to_catch_up(
    small_batches: Settings, pipelined: bool
) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()
    service.store.save(*captured(2))  # written by "another process", not yet projected
    _, projected = append_and_project(service, captured(5)[2:], pipelined=pipelined)
    assert projected is False
    assert count(service, "epcis_events") == 0
    service.projections.catch_up()
    assert count(service, "epcis_events") == 5
    service.close()


def test_a_projection_that_fails_inline_leaves_the_events_stored_for_the_follower(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()

    def broken(self: Projection, conn: Any, events: Any) -> None:
        raise RuntimeError("a projection's bug")

    with monkeypatch.context() as patch:
        patch.setattr(EpcisEventsProjection, "apply", broken)
        last, projected = append_and_project(service, captured(3))
    assert projected is False
    assert service.store.max_position() == last
    assert count(service, "epcis_events") == 0
    service.projections.catch_up()
    assert count(service, "epcis_events") == 3
    service.close()


def test_a_projection_whose_statement_fails_in_a_pipeline_leaves_the_events_for_the_follower(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()

    def failing(self: Projection, conn: Any, events: Any) -> None:
        # Pipelined, the error comes back with a later answer, not from this call.
        conn.send("INSERT INTO no_such_table VALUES (1)")

    with monkeypatch.context() as patch:
        patch.setattr(EpcisEventsProjection, "apply", failing)
        last, projected = append_and_project(service, captured(3), pipelined=True)
    assert projected is False
    assert service.store.max_position() == last
    service.projections.catch_up()
    assert count(service, "epcis_events") == 3
    service.close()


def test_appended_events_are_projected_inline_in_a_pipelined_transaction(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()
    last, projected = append_and_project(service, captured(6), pipelined=True)
    assert projected is True
    assert count(service, "epcis_events") == 6
    assert service.projections.reached == last
    service.close()


@pytest.mark.parametrize("pipelined", [False, True])
def test_appended_events_are_refused_whole_when_one_identity_is_taken(
    small_batches: Settings, pipelined: bool
) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()
    append_and_project(service, captured(2))
    with pytest.raises(DuplicateAggregate):
        append_and_project(service, captured(3, first=1), pipelined=pipelined)
    assert service.store.max_position() == 2
    assert count(service, "epcis_events") == 2
    service.close()


def test_a_projection_with_nothing_new_moves_its_position_to_the_head(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    head = service.store.save(*captured(10))
    service.projections.catch_up()
    records = next(p for p in service.projections.projections if p.name == "records")
    # Otherwise every poll would search the whole log again for events it never finds.
    assert service.projections.position(records) == head
    service.close()


def test_processes_starting_together_on_a_fresh_database_all_start(settings: Settings) -> None:
    started: list[Tracepoint] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            started.append(Tracepoint(settings))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(started) == 3
    for service in started:
        service.close()


def analyzed(service: Tracepoint) -> bool:
    """Whether PostgreSQL's planner holds statistics of `epcis_events`."""
    with service.database.transaction(write=False) as conn:
        return bool(
            conn.fetchval(
                "SELECT COUNT(*) FROM pg_stats"
                " WHERE tablename = 'epcis_events' AND schemaname = current_schema()"
            )
        )


def caught_up(settings: Settings, monkeypatch: pytest.MonkeyPatch, min_events: int) -> Tracepoint:
    """A service that caught up with ten new events, statistics refreshed from
    `min_events` new events on."""
    monkeypatch.setattr("projections.runner.ANALYZE_MIN_EVENTS", min_events)
    service = Tracepoint(settings)
    service.store.save(*captured(10))
    service.projections.catch_up()
    return service


@pytest.fixture
def on_postgresql(small_batches: Settings) -> Settings:
    if not small_batches.database_url.startswith("postgresql"):
        pytest.skip("planner statistics are refreshed on PostgreSQL only")
    return small_batches


def test_catch_up_refreshes_planner_statistics_once_the_log_has_grown(
    on_postgresql: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server may run without autovacuum; without statistics a time-window page took
    # 200 ms instead of 1 ms at a million events.
    service = caught_up(on_postgresql, monkeypatch, min_events=8)
    assert analyzed(service)
    service.close()


def test_catch_up_vacuums_the_query_tables_once_the_log_has_grown(
    on_postgresql: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Index-only scans visit the table for every row until a vacuum marks its pages
    # all-visible, and autovacuum may be switched off.
    service = caught_up(on_postgresql, monkeypatch, min_events=8)
    with service.database.transaction(write=False) as conn:
        vacuumed = conn.fetchval(
            "SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables"
            " WHERE relname = 'epcis_events' AND schemaname = current_schema()"
        )
    assert vacuumed
    service.close()


def test_a_few_new_events_do_not_refresh_planner_statistics(
    on_postgresql: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = caught_up(on_postgresql, monkeypatch, min_events=50)
    assert not analyzed(service)
    service.close()


def test_tables_whose_ddl_changed_are_rebuilt_from_the_log(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(6))
    service.projections.catch_up()
    service.close()

    wider = (
        *EpcisEventsProjection.schema,
        "CREATE INDEX IF NOT EXISTS epcis_events_account ON epcis_events (account_term)",
    )
    monkeypatch.setattr(EpcisEventsProjection, "schema", wider)
    with pytest.MonkeyPatch.context() as patch:
        dropped: list[str] = []
        original = EpcisEventsProjection.drop_tables

        def noting(self: EpcisEventsProjection, conn: Any) -> None:
            dropped.append(self.name)
            original(self, conn)

        patch.setattr(EpcisEventsProjection, "drop_tables", noting)
        upgraded = Tracepoint(small_batches)
    assert dropped == [EpcisEventsProjection.name]
    upgraded.projections.catch_up()
    assert count(upgraded, "epcis_events") == 6
    assert count(upgraded, "epcis_event_epcs") == 6
    upgraded.close()


def test_tables_of_an_earlier_revision_are_rebuilt_from_the_log(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a projection writes may change while its DDL does not (a value indexed in
    # another form): raising its revision rebuilds the rows the earlier one wrote.
    service = Tracepoint(small_batches)
    service.store.save(*captured(4))
    service.projections.catch_up()
    service.close()

    monkeypatch.setattr(EpcisEventsProjection, "revision", EpcisEventsProjection.revision + 1)
    upgraded = Tracepoint(small_batches)
    positions = {p.name: upgraded.projections.position(p) for p in upgraded.projections.projections}
    assert positions.pop(EpcisEventsProjection.name) == 0
    assert all(position > 0 for position in positions.values()), positions  # kept
    upgraded.projections.catch_up()
    assert count(upgraded, "epcis_events") == 4
    upgraded.close()


def test_tables_whose_ddl_is_unchanged_are_kept(small_batches: Settings) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(3))
    service.projections.catch_up()
    service.close()
    again = Tracepoint(small_batches)
    assert again.projections.position(again.projections.projections[0]) > 0
    again.close()


def test_tables_from_before_shapes_were_recorded_are_rebuilt(small_batches: Settings) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(2))
    service.projections.catch_up()
    with service.database.transaction() as conn:
        conn.execute("DELETE FROM projection_shapes")
        conn.execute("DELETE FROM epcis_capture_jobs")  # stands for an older table
    service.close()
    upgraded = Tracepoint(small_batches)
    for projection in upgraded.projections.projections:
        assert upgraded.projections.position(projection) == 0, projection.name
    upgraded.projections.catch_up()
    assert count(upgraded, "epcis_events") == 2
    upgraded.close()


def made_tables(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The projections whose `create_tables` runs from now on, by name."""
    made: list[str] = []
    original = Projection.create_tables

    def noting(self: Projection, conn: Any) -> None:
        made.append(self.name)
        original(self, conn)

    monkeypatch.setattr(Projection, "create_tables", noting)
    return made


def test_a_start_skips_the_ddl_of_tables_made_as_they_are_now(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    Tracepoint(small_batches).close()
    made = made_tables(monkeypatch)
    again = Tracepoint(small_batches)
    assert made == []
    again.close()


def test_a_start_remakes_the_search_index_of_a_collection_whose_search_fields_changed(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    Tracepoint(small_batches).close()
    original = RecordsProjection.__init__

    def searching_one_field(self: RecordsProjection, collections: Any) -> None:
        original(self, collections)
        first = self.searched[0]
        [text, *_] = [f.name for f in first.fields if f.type == FieldType.STRING]
        # Another search field: the same tables, another search index.
        self.searched = (dataclasses.replace(first, search=(text,)), *self.searched[1:])

    monkeypatch.setattr(RecordsProjection, "__init__", searching_one_field)
    made = made_tables(monkeypatch)
    Tracepoint(small_batches).close()
    assert made == [RecordsProjection.name]


def test_a_replay_makes_every_table_again(small_batches: Settings) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(3))
    service.projections.rebuild()
    assert count(service, "epcis_events") == 3
    service.close()


def stored_positions(service: Tracepoint) -> dict[str, int]:
    with service.database.transaction(write=False) as conn:
        return dict(conn.fetchall("SELECT name, position FROM projection_positions"))


def test_every_projection_stands_at_one_position_after_catch_up(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    head = service.store.save(*captured(10))
    service.projections.catch_up()
    assert set(stored_positions(service).values()) == {head}
    service.close()


def test_appended_events_move_every_projection_together(small_batches: Settings) -> None:
    service = Tracepoint(small_batches)
    service.projections.catch_up()
    last, _ = append_and_project(service, captured(3))
    assert set(stored_positions(service).values()) == {last}
    service.close()


def test_a_batch_is_committed_by_every_projection_at_once_or_by_none(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(3, capture_id="first"))
    service.projections.catch_up()
    before = stored_positions(service)
    service.store.save(*captured(2, capture_id="second", first=3))

    def crash(self: EpcisEventsProjection, conn: Any, events: Any) -> None:
        raise RuntimeError("the events projection fails")

    monkeypatch.setattr(EpcisEventsProjection, "apply", crash)
    with pytest.raises(RuntimeError):
        service.projections.catch_up()
    # The others did not run ahead of the failing one.
    assert stored_positions(service) == before
    service.close()


def test_a_rebuilt_projection_catches_up_to_the_others_before_they_move_on(
    small_batches: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(6))
    service.projections.catch_up()
    service.close()
    monkeypatch.setattr(EpcisEventsProjection, "revision", EpcisEventsProjection.revision + 1)
    upgraded = Tracepoint(small_batches)
    head = upgraded.store.save(*captured(3, capture_id="later", first=6))
    upgraded.projections.catch_up()
    assert set(stored_positions(upgraded).values()) == {head}
    assert count(upgraded, "epcis_events") == 9
    upgraded.close()


def test_a_batch_takes_in_the_whole_capture_its_last_event_belongs_to(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    service.store.save(*captured(10, capture_id="big"))
    head = service.store.save(*captured(2, capture_id="next", first=10))
    applied: list[int] = []
    service.projections.catch_up(applied.append)
    # Batches of 4 events, but none ends inside the capture of 10.
    assert applied[0] == 10
    assert count(service, "epcis_events") == 12
    assert set(stored_positions(service).values()) == {head}
    service.close()


def test_the_lag_of_a_projection_rebuilt_by_another_process_is_its_stored_position(
    small_batches: Settings,
) -> None:
    service = Tracepoint(small_batches)
    head = service.store.save(*captured(6))
    service.projections.catch_up()
    # Another process starts rebuilding one projection: its tables begin again at 0.
    name = EpcisEventsProjection().name
    with service.database.transaction() as conn:
        conn.execute("UPDATE projection_positions SET position = 0 WHERE name = ?", (name,))
    _, lags = service.projections.lag(datetime.now(UTC))
    lag = {lag.name: lag for lag in lags}[name]
    assert (lag.position, lag.positions_behind) == (0, head)
    service.close()
