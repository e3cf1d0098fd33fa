"""Large captures are analysed in worker processes, with the same results as in the service."""

import gc
import os
import signal
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from application.epcis import analysis
from application.epcis.analysis import PARALLEL_FROM, EventAnalyser, analyse_events
from domain.epcis.event_hash import event_hash
from domain.epcis.index_terms import event_terms
from domain.epcis.lineage_terms import event_lineage
from tests.epcis.documents import aggregation_event, object_event

NAMESPACES = {"example": "https://example.com/ns/"}


def _events(count: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for i in range(count):
        if i % 3 == 0:
            events.append(
                aggregation_event(
                    f"urn:epc:id:sscc:4012345.{i:010d}",
                    [f"urn:epc:id:sgtin:4012345.011111.{i}.{n}" for n in range(3)],
                )
            )
        elif i % 3 == 1:
            events.append(object_event(eventID=f"urn:uuid:{i:08d}-0000-4000-8000-000000000000"))
        else:
            events.append(object_event(**{"example:temperature": i}))
    return events


@pytest.fixture
def analyser() -> Iterator[EventAnalyser]:
    service = EventAnalyser(workers=2)
    yield service
    service.close()


def test_workers_name_and_index_events_as_the_service_process_does(
    analyser: EventAnalyser,
) -> None:
    events = _events(PARALLEL_FROM * 3)

    assert analyser.analyse(events, NAMESPACES, ()) == analyse_events(events, NAMESPACES, ())


def test_an_event_keeps_its_own_event_id_and_others_get_their_hash(
    analyser: EventAnalyser,
) -> None:
    events = _events(PARALLEL_FROM)

    names = [analysis.name for analysis in analyser.analyse(events, NAMESPACES, ())]

    assert names == [e.get("eventID") or event_hash(e, NAMESPACES) for e in events]


def test_index_terms_come_back_from_the_workers_whole(analyser: EventAnalyser) -> None:
    events = _events(PARALLEL_FROM)

    derived = [analysis.terms for analysis in analyser.analyse(events, NAMESPACES, ())]

    terms = [d.index if d is not None else None for d in derived]
    assert terms == [event_terms(e, NAMESPACES) for e in events]
    assert any(t is not None and t.fields for t in terms)


def test_lineage_rows_come_back_from_the_workers_whole(analyser: EventAnalyser) -> None:
    events = _events(PARALLEL_FROM)

    derived = [analysis.terms for analysis in analyser.analyse(events, NAMESPACES, ())]

    expected = [event_lineage(e, event_terms(e, NAMESPACES)) for e in events]
    assert [d.lineage if d is not None else None for d in derived] == expected


def test_an_event_without_index_terms_is_named_and_has_none(analyser: EventAnalyser) -> None:
    events = _events(PARALLEL_FROM)
    events[5]["eventTime"] = "not a time"

    analysis = analyser.analyse(events, NAMESPACES, ())[5]

    assert analysis.name == event_hash(events[5], NAMESPACES)
    assert analysis.terms is None


def test_an_event_whose_terms_fail_says_why() -> None:
    event = object_event(
        quantityList=[{"epcClass": "urn:epc:class:lgtin:4012345.011111.1", "quantity": 10**400}]
    )

    analysis = analyse_events([event], {}, ())[0]

    assert analysis.terms is None
    assert analysis.problem is not None
    assert "float" in analysis.problem


def test_ignored_fields_are_left_out_of_the_hash_in_the_workers(
    analyser: EventAnalyser,
) -> None:
    events = _events(PARALLEL_FROM)
    ignored = ("example:temperature",)

    names = [analysis.name for analysis in analyser.analyse(events, NAMESPACES, ignored)]

    assert names[2] == event_hash(events[2], NAMESPACES, ignore_fields=ignored)
    assert names[2] != event_hash(events[2], NAMESPACES)


def test_a_killed_worker_costs_no_capture_its_analysis(analyser: EventAnalyser) -> None:
    events = _events(PARALLEL_FROM * 2)
    expected = analyse_events(events, NAMESPACES, ())
    analyser.start()
    analyser.analyse(events, NAMESPACES, ())
    for pid in analyser.worker_pids():
        os.kill(pid, signal.SIGKILL)

    assert analyser.analyse(events, NAMESPACES, ()) == expected
    # The broken pool is replaced by a fresh one for the next large capture.
    assert analyser.analyse(events, NAMESPACES, ()) == expected
    assert analyser.worker_pids()


def test_a_closed_analyser_stops_its_workers_and_still_answers() -> None:
    analyser = EventAnalyser(workers=2)
    events = _events(PARALLEL_FROM)
    analyser.analyse(events, NAMESPACES, ())
    pids = analyser.worker_pids()
    assert pids

    analyser.close()

    assert not any(_alive(pid) for pid in pids)
    assert analyser.analyse(events, NAMESPACES, ()) == analyse_events(events, NAMESPACES, ())
    assert analyser.worker_pids() == []


def test_no_workers_means_everything_runs_in_the_service_process() -> None:
    analyser = EventAnalyser(workers=0)
    events = _events(PARALLEL_FROM * 2)
    analyser.start()

    assert analyser.analyse(events, NAMESPACES, ()) == analyse_events(events, NAMESPACES, ())
    assert analyser.worker_pids() == []
    analyser.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_worker_analyses_with_the_cyclic_collector_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    collecting: list[bool] = []

    def analysed(*args: Any, **kwargs: Any) -> list[analysis.EventAnalysis]:
        collecting.append(gc.isenabled())
        return analyse_events(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse_events", analysed)
    assert gc.isenabled()

    analysis._analyse_encoded(orjson.dumps(_events(3)), NAMESPACES, ())

    assert collecting == [False]
    assert gc.isenabled()


def test_a_chunk_that_spells_no_standard_prefix_is_not_looked_at_event_by_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked: list[Any] = []
    monkeypatch.setattr(
        analysis, "earlier_event_hash", lambda event, *_, **__: looked.append(event)
    )

    analysed = analysis._analyse_encoded(orjson.dumps(_events(3)), NAMESPACES, ())

    assert looked == []
    assert [a.earlier_name for a in analysed] == [None, None, None]


def test_a_chunk_that_spells_one_gives_its_events_their_earlier_names() -> None:
    # `gs1:` unbound: the type hashes as its IRI now, and hashed as the CURIE before.
    report = {"type": "gs1:Angle", "value": 42.698334, "uom": "DD"}
    curie = object_event(
        epcList=["urn:epc:id:sgtin:4012345.011111.9"],
        sensorElementList=[{"sensorReport": [report]}],
    )
    events = [*_events(2), curie]

    in_worker = analysis._analyse_encoded(orjson.dumps(events), {}, ())

    assert in_worker == analyse_events(events, {}, ())
    assert in_worker[2].earlier_name == event_hash(curie, {}, expand_standard_prefixes=False)
    assert in_worker[2].earlier_name != in_worker[2].name
