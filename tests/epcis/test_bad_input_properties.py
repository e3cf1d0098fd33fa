"""Whatever a client sends to capture, validate or query, the answer is never a 5xx, and a
refused capture stores nothing while an accepted one stores what its job counts."""

import copy
import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from application.service.runtime import Tracepoint
from tests.conftest import AUTH
from tests.epcis.documents import aggregation_event, document, object_event
from tests.epcis.test_capture import Client, events

_BASE = document(
    object_event(eventID="urn:uuid:6f0c1b52-0d5e-4c39-9d5a-1a2b3c4d5e6f"),
    aggregation_event("urn:epc:id:sscc:4012345.0000000001", ["urn:epc:id:sgtin:4012345.011111.9"]),
)
_DELETE = object()


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*path, index))
    return found


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=12,
)
#: The values a mutation puts in place: any JSON, or text that looks like what the field
#: might hold (timestamps, URNs, CBV words), or nothing at all.
_VALUES = (
    _JSON
    | st.sampled_from(
        [
            "2024-13-45T99:99:99Z",
            "2024-03-01T10:00:00.000+25:00",
            "urn:epc:id:sgtin:4012345.011111",
            "https://id.gs1.org/01/09506000134352/21/1",
            "BizStep-shipping",
            "",
            "\x00",
            "x" * 5000,
        ]
    )
    | st.just(_DELETE)
)
_MUTATIONS = st.lists(st.tuples(st.sampled_from(_paths(_BASE)), _VALUES), min_size=1, max_size=3)


def _mutated(mutations: list[tuple[tuple[Any, ...], Any]]) -> Any:
    doc: Any = copy.deepcopy(_BASE)
    for path, value in mutations:
        if not path:
            doc = value if value is not _DELETE else None
            continue
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            if value is _DELETE:
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation took the path away
    return doc


def _encoded(doc: Any) -> bytes:
    # The standard library's encoder: integers past 64 bits are what clients may send too.
    return json.dumps(doc).encode()


async def _stored(client: Client) -> int:
    return len(await events(client, perPage="1000"))


_QUICK = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@_QUICK
@given(mutations=_MUTATIONS, behaviour=st.sampled_from(["rollback", "proceed"]))
async def test_a_mutated_capture_is_never_5xx_and_never_half_stored(
    client: Client, tracepoint: Tracepoint, mutations: Any, behaviour: str
) -> None:
    before, position = await _stored(client), tracepoint.store.max_position()
    headers = {**AUTH, "GS1-Capture-Error-Behaviour": behaviour}
    body = _encoded(_mutated(mutations))
    response = await client.post(
        "/v2/epcis/capture", data=body, headers={**headers, "Content-Type": "application/json"}
    )
    assert response.status < 500, await response.text()
    if response.status != 201:
        assert tracepoint.store.max_position() == position
        assert await _stored(client) == before
        return
    job = await client.get(response.headers["Location"], headers=AUTH)
    assert (await _stored(client)) - before == (await job.json())["eventsCaptured"]


@_QUICK
@given(mutations=_MUTATIONS)
async def test_a_mutated_document_is_validated_without_5xx_or_storing(
    client: Client, tracepoint: Tracepoint, mutations: Any
) -> None:
    position = tracepoint.store.max_position()
    response = await client.post(
        "/v2/epcis/validate",
        data=_encoded(_mutated(mutations)),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status in (200, 400, 413, 415), await response.text()
    assert tracepoint.store.max_position() == position


_PARAMETERS = st.sampled_from(
    [
        "eventType",
        "GE_eventTime",
        "LT_recordTime",
        "EQ_action",
        "EQ_bizStep",
        "MATCH_epc",
        "MATCH_anyEPC",
        "EQ_readPoint",
        "WD_bizLocation",
        "EQ_eventID",
        "orderBy",
        "orderDirection",
        "perPage",
        "nextPageToken",
        "eventCountLimit",
        "GE_quantity",
        "EQ_bizTransaction_po",
    ]
) | st.text(max_size=20)


@_QUICK
@given(params=st.lists(st.tuples(_PARAMETERS, st.text(max_size=60)), max_size=4))
async def test_query_parameters_of_any_name_and_value_are_never_5xx(
    client: Client, params: list[tuple[str, str]]
) -> None:
    response = await client.get("/v2/epcis/events", params=params, headers=AUTH)
    assert response.status in (200, 400, 404), await response.text()


@_QUICK
@given(
    collection=st.sampled_from(
        ["eventTypes", "epcs", "bizSteps", "bizLocations", "readPoints", "dispositions"]
    ),
    value=st.text(min_size=1, max_size=60),
    events_of_it=st.booleans(),
    params=st.lists(st.tuples(_PARAMETERS, st.text(max_size=30)), max_size=2),
)
async def test_a_collection_member_of_any_id_is_never_5xx(
    client: Client,
    collection: str,
    value: str,
    events_of_it: bool,
    params: list[tuple[str, str]],
) -> None:
    path = f"/v2/epcis/{collection}/{quote(value, safe='')}" + ("/events" if events_of_it else "")
    response = await client.get(path, params=params, headers=AUTH)
    assert response.status in (200, 400, 404), await response.text()


@pytest.mark.parametrize("value", ["\x00:", "ex\x00:step", "\x00"])
async def test_a_query_value_holding_nul_is_answered_not_a_5xx(client: Client, value: str) -> None:
    for name in ("eventType", "EQ_bizStep", "EQ_readPoint", "MATCH_epc"):
        response = await client.get("/v2/epcis/events", params={name: value}, headers=AUTH)
        assert response.status in (200, 400), (name, await response.text())
