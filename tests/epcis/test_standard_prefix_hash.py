"""The CBV 2.0 hash expands the standard prefixes `gs1:`, `cbv:`, `epcis:` where a document
leaves them unbound (the algorithm's rule 15), so `gs1:Angle` and `Angle` are one event;
events stored under the hash they had before keep it."""

from functools import partial
from typing import Any
from urllib.parse import quote

import pytest

from application.epcis import analysis
from application.service.runtime import Tracepoint
from domain.epcis import earlier_hash
from domain.epcis.earlier_hash import earlier_event_hash
from domain.epcis.event_hash import event_hash
from tests.access.helpers import Client, call
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events
from tests.items.test_tenants import (  # noqa: F401 (fixtures)
    Tenants,
    settings,
    stored_as_before,
    tenants,
)


def _angle(kind: str) -> dict[str, Any]:
    report = {"type": kind, "value": 42.698334, "uom": "DD"}
    return object_event(
        epcList=["urn:epc:id:sgtin:4012345.011111.77"],
        sensorElementList=[{"sensorReport": [report]}],
    )


GS1_ANGLE, BARE_ANGLE = _angle("gs1:Angle"), _angle("Angle")


def test_an_unbound_gs1_curie_hashes_as_its_iri_and_as_the_bare_word() -> None:
    assert event_hash(GS1_ANGLE, {}) == event_hash(BARE_ANGLE, {})
    assert event_hash(GS1_ANGLE, {}) == event_hash(_angle("https://gs1.org/voc/Angle"), {})


@pytest.mark.parametrize(
    ("field", "curie", "iri"),
    [
        ("bizStep", "cbv:BizStep-shipping", "https://ref.gs1.org/cbv/BizStep-shipping"),
        ("disposition", "cbv:Disp-in_transit", "in_transit"),
    ],
)
def test_an_unbound_cbv_curie_hashes_as_its_iri(field: str, curie: str, iri: str) -> None:
    event = object_event(epcList=["urn:epc:id:sgtin:4012345.011111.78"])
    assert event_hash({**event, field: curie}, {}) == event_hash({**event, field: iri}, {})


def test_a_document_binding_gs1_otherwise_is_followed() -> None:
    other = {"gs1": "https://example.com/not-gs1/"}
    assert event_hash(GS1_ANGLE, other) != event_hash(BARE_ANGLE, other)


def test_the_earlier_hash_is_known_only_where_it_differs() -> None:
    assert earlier_event_hash(BARE_ANGLE, {}) is None
    assert earlier_event_hash(GS1_ANGLE, {"gs1": "https://gs1.org/voc/"}) is None
    earlier = earlier_event_hash(GS1_ANGLE, {})
    assert earlier is not None
    assert earlier == event_hash(GS1_ANGLE, {}, expand_standard_prefixes=False)
    assert earlier != event_hash(GS1_ANGLE, {})


def test_the_earlier_hash_takes_the_current_one_from_a_caller_that_has_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    current = event_hash(GS1_ANGLE, {})
    hashed: list[bool] = []

    def counting(*args: Any, **kwargs: Any) -> str:
        hashed.append(kwargs.get("expand_standard_prefixes", True))
        return event_hash(*args, **kwargs)

    monkeypatch.setattr(earlier_hash, "event_hash", counting)
    earlier = earlier_event_hash(GS1_ANGLE, {}, current=current)
    assert earlier == event_hash(GS1_ANGLE, {}, expand_standard_prefixes=False)
    assert hashed == [False]  # the earlier form only: the current one was given
    assert earlier_event_hash(GS1_ANGLE, {"gs1": "https://gs1.org/voc/"}, current=current) is None


async def test_gs1_angle_and_angle_are_one_event(client: Client) -> None:
    assert (await capture(client, document(GS1_ANGLE))).status == 201
    again = await capture(client, document(BARE_ANGLE))
    assert again.status == 201
    assert "Captured 0 new event(s)" in (await again.json())["message"]
    [stored] = await events(client)
    assert stored["eventID"] == event_hash(BARE_ANGLE, {})


def _as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Name events as this service did before it expanded unbound standard prefixes."""
    monkeypatch.setattr(analysis, "event_hash", partial(event_hash, expand_standard_prefixes=False))
    monkeypatch.setattr(analysis, "earlier_event_hash", lambda *_, **__: None)


async def test_an_event_stored_under_its_earlier_hash_keeps_it(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    earlier = event_hash(GS1_ANGLE, {}, expand_standard_prefixes=False)
    with monkeypatch.context() as patched:
        _as_before(patched)
        assert (await capture(client, document(GS1_ANGLE))).status == 201
    [stored] = await events(client)
    assert stored["eventID"] == earlier
    again = await capture(client, document(GS1_ANGLE))
    assert "Captured 0 new event(s); 1 already present" in (await again.json())["message"]
    [still] = await events(client)
    assert still["eventID"] == earlier
    one = await client.get("/v2/epcis/events/" + quote(earlier, safe=""), headers=AUTH)
    assert one.status == 200


async def test_a_declaration_of_an_event_stored_under_its_earlier_hash_joins_it(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patched:
        _as_before(patched)
        assert (await capture(client, document(GS1_ANGLE))).status == 201
    declared = {
        **GS1_ANGLE,
        "errorDeclaration": {"declarationTime": "2024-03-02T10:00:00Z", "reason": "incorrect_data"},
    }
    response = await capture(client, document(declared))
    assert "1 new error declaration(s)" in (await response.json())["message"]
    assert len({e["eventID"] for e in await events(client)}) == 1


@pytest.mark.parametrize("expand", [True, False], ids=["standard-hash", "earlier-hash"])
async def test_a_client_may_name_the_event_by_either_hash(client: Client, expand: bool) -> None:
    named = event_hash(GS1_ANGLE, {}, expand_standard_prefixes=expand)
    response = await capture(client, document({**GS1_ANGLE, "eventID": named}))
    assert response.status == 201, await response.text()
    [stored] = await events(client)
    assert stored["eventID"] == named


async def test_a_hash_of_other_content_is_still_refused(client: Client) -> None:
    wrong = event_hash(_angle("gs1:Length"), {}, expand_standard_prefixes=False)
    response = await capture(client, document({**GS1_ANGLE, "eventID": wrong}))
    assert response.status == 400
    assert event_hash(GS1_ANGLE, {}) in await response.text()


async def test_a_tenants_event_stored_under_its_earlier_hash_keeps_it(
    client: Client,
    tenants: Tenants,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    earlier = event_hash(GS1_ANGLE, {}, expand_standard_prefixes=False)
    body = document(GS1_ANGLE)
    with monkeypatch.context() as patched:
        _as_before(patched)
        status, _ = await call(client, "POST", "/v2/epcis/capture", body, token=tenants.a.token)
        assert status == 201
    status, answer = await call(client, "POST", "/v2/epcis/capture", body, token=tenants.a.token)
    assert "1 already present" in answer["message"]
    # Another account never stored it: it gets the standard's hash.
    status, answer = await call(client, "POST", "/v2/epcis/capture", body, token=tenants.b.token)
    assert "Captured 1 new event(s)" in answer["message"]
    status, page = await call(client, "GET", "/v2/epcis/events", token=tenants.b.token)
    [theirs] = page["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert theirs["eventID"] == event_hash(GS1_ANGLE, {}) != earlier


async def test_post_events_locates_an_event_stored_under_its_earlier_hash(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    earlier = event_hash(GS1_ANGLE, {}, expand_standard_prefixes=False)
    with monkeypatch.context() as patched:
        _as_before(patched)
        assert (await capture(client, document(GS1_ANGLE))).status == 201
    response = await client.post("/v2/epcis/events", json=GS1_ANGLE, headers=AUTH)
    assert response.status == 200, await response.text()
    assert response.headers["Location"] == "/v2/epcis/events/" + quote(earlier, safe="")


async def test_an_event_stored_before_identity_was_per_account_keeps_its_earlier_hash(
    client: Client,
    tenants: Tenants,  # noqa: F811
    tracepoint: Tracepoint,
) -> None:
    # As a multi-tenant installation of an earlier version stored A's capture: the earlier
    # hash as its name, an installation-wide identity.
    earlier = event_hash(GS1_ANGLE, {}, expand_standard_prefixes=False)
    await stored_as_before(tracepoint, tenants, earlier, GS1_ANGLE)
    body = document(GS1_ANGLE)
    for user, said in ((tenants.a, "0 new event(s); 1 already present"), (tenants.b, "1 new")):
        status, answer = await call(client, "POST", "/v2/epcis/capture", body, token=user.token)
        assert status == 201
        assert said in answer["message"]
    status, page = await call(client, "GET", "/v2/epcis/events", token=tenants.a.token)
    [theirs] = page["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert theirs["eventID"] == earlier
