"""A standard CBV value written as a `cbv:` CURIE is the value the EPCIS context makes of it
(`cbv:BizStep-shipping` is https://ref.gs1.org/cbv/BizStep-shipping): it is one value with
its bare word, CBV URN and Web URI in queries, partner rules and the REST resources."""

from collections.abc import Callable
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from domain.epcis import index_terms
from domain.epcis.captured_event import CapturedEvent
from projections.epcis.events import EpcisEventsProjection
from tests.access.test_permissions import ids, numbered
from tests.conftest import make_settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture
from tests.epcis.test_custom_vocabulary import Client, found
from tests.epcis.test_resources import event_ids, get, members, path_id
from tests.epcis.test_rule_curies import partner_sees

CBV = "https://ref.gs1.org/cbv/"
PARTY = "urn:epc:id:pgln:4012345.00000"
TRANSACTION = "urn:epc:id:gdti:4012345.00001.1"


def spellings(urn_kind: str, web_kind: str, word: str) -> tuple[str, str, str, str]:
    """A standard value as bare word, CBV URN, Web URI and `cbv:` CURIE."""
    return (
        word,
        f"urn:epcglobal:cbv:{urn_kind}:{word}",
        f"{CBV}{web_kind}-{word}",
        f"cbv:{web_kind}-{word}",
    )


Fields = Callable[[str], dict[str, Any]]
Query = Callable[[str], dict[str, str]]

#: Each event field holding a CBV value: its value's spellings, another value, the fields
#: an event holding a value has, and the query that asks for a value.
FIELDS: dict[str, tuple[tuple[str, ...], str, Fields, Query]] = {
    "bizStep": (
        spellings("bizstep", "BizStep", "shipping"),
        "receiving",
        lambda v: {"bizStep": v},
        lambda v: {"EQ_bizStep": v},
    ),
    "disposition": (
        spellings("disp", "Disp", "in_transit"),
        "in_progress",
        lambda v: {"disposition": v},
        lambda v: {"EQ_disposition": v},
    ),
    "bizTransactionType": (
        spellings("btt", "BTT", "po"),
        "inv",
        lambda v: {"bizTransactionList": [{"type": v, "bizTransaction": TRANSACTION}]},
        lambda v: {f"EQ_bizTransaction_{v}": TRANSACTION},
    ),
    "sourceType": (
        spellings("sdt", "SDT", "owning_party"),
        "location",
        lambda v: {"sourceList": [{"type": v, "source": PARTY}]},
        lambda v: {f"EQ_source_{v}": PARTY},
    ),
    "destinationType": (
        spellings("sdt", "SDT", "possessing_party"),
        "owning_party",
        lambda v: {"destinationList": [{"type": v, "destination": PARTY}]},
        lambda v: {f"EQ_destination_{v}": PARTY},
    ),
    "persistentDisposition": (
        spellings("disp", "Disp", "recalled"),
        "damaged",
        lambda v: {"persistentDisposition": {"set": [v]}},
        lambda v: {"EQ_persistentDisposition_set": v},
    ),
    "errorReason": (
        spellings("er", "ER", "incorrect_data"),
        "did_not_occur",
        lambda v: {
            "errorDeclaration": {"declarationTime": "2024-03-05T10:00:00.000Z", "reason": v}
        },
        lambda v: {"EQ_errorReason": v},
    ),
}

CASES = [
    pytest.param(field, spelling, id=f"{field}-{spelling}")
    for field, (written, *_) in FIELDS.items()
    for spelling in range(len(written))
]


@pytest.mark.parametrize(("field", "spelling"), CASES)
async def test_a_query_in_any_spelling_finds_the_events_captured_in_every_spelling(
    client: Client, field: str, spelling: int
) -> None:
    written, other, fields, query = FIELDS[field]
    holding = [numbered(n, **fields(value)) for n, value in enumerate(written)]
    response = await capture(client, document(*holding, numbered(9, **fields(other))))
    assert response.status == 201, await response.text()
    assert await found(client, query(written[spelling])) == ids(*holding)


async def test_a_rule_with_a_cbv_curie_sees_the_events_of_every_spelling(client: Client) -> None:
    written, other, fields, _ = FIELDS["bizStep"]
    holding = [numbered(n, **fields(value)) for n, value in enumerate(written)]
    await capture(client, document(*holding, numbered(9, **fields(other))))
    assert await partner_sees(client, {"bizStep": {"_eq": "cbv:BizStep-shipping"}}) == ids(*holding)


async def test_a_rule_with_a_bare_word_sees_events_captured_with_its_cbv_curie(
    client: Client,
) -> None:
    as_curie = numbered(1, disposition="cbv:Disp-in_transit")
    await capture(client, document(as_curie, numbered(2, disposition="in_progress")))
    assert await partner_sees(client, {"disposition": {"_eq": "in_transit"}}) == ids(as_curie)


async def test_a_rule_on_an_error_reason_reads_its_cbv_curie(client: Client) -> None:
    _, other, fields, _ = FIELDS["errorReason"]
    declared = numbered(1, **fields("incorrect_data"))
    await capture(client, document(declared, numbered(2, **fields(other))))
    rule = {"errorDeclaration": {"reason": {"_eq": "cbv:ER-incorrect_data"}}}
    assert await partner_sees(client, rule) == ids(declared)


async def test_a_cbv_curie_names_the_standard_member_with_or_without_events(
    client: Client,
) -> None:
    destroying = "/v2/epcis/bizSteps/cbv:BizStep-destroying"
    body = await (await get(client, destroying)).json()
    assert body["member"] == ["events"]
    assert await event_ids(client, destroying + "/events") == []


async def test_the_member_of_a_cbv_curie_lists_the_events_of_every_spelling(
    client: Client,
) -> None:
    written, other, _, _ = FIELDS["bizStep"]
    holding = [
        object_event(eventID=f"urn:uuid:00000000-0000-4000-8000-00000000000{letter}", bizStep=v)
        for letter, v in zip("abcd", written, strict=True)
    ]
    await capture(client, document(*holding, object_event(bizStep=other)))
    for name in written:
        path = "/v2/epcis/bizSteps/" + path_id(name) + "/events"
        assert await event_ids(client, path) == ["a", "b", "c", "d"], name


async def test_an_event_captured_with_a_cbv_curie_adds_no_member_beside_the_bare_word(
    client: Client,
) -> None:
    before = await members(client, "/v2/epcis/dispositions?perPage=100")
    await capture(client, document(object_event(disposition="cbv:Disp-in_transit")))
    assert await members(client, "/v2/epcis/dispositions?perPage=100") == before
    assert "in_transit" in before


def biz_steps(service: Tracepoint) -> list[str]:
    with service.database.transaction(write=False) as conn:
        return [
            row[0]
            for row in conn.fetchall(
                "SELECT t.value FROM epcis_events e JOIN epcis_terms t ON t.id = e.biz_step_term"
            )
        ]


def test_events_indexed_before_cbv_curies_were_expanded_are_indexed_again_on_upgrade(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(database_url)
    # The earlier version: revision 0 of the query tables, `cbv:` CURIEs indexed as written.
    monkeypatch.setattr(EpcisEventsProjection, "revision", 0)
    expanding = index_terms.normalise_cbv
    monkeypatch.setattr(
        index_terms,
        "normalise_cbv",
        lambda kind, value: value if value.startswith("cbv:") else expanding(kind, value),
    )
    earlier = Tracepoint(settings)
    earlier.store.save(
        CapturedEvent(
            event_id="urn:uuid:00000000-0000-4000-8000-000000000001",
            epcis_event=object_event(bizStep="cbv:BizStep-shipping"),
            namespaces={},
            record_time="2024-03-01T10:00:00.000Z",
            capture_id="c1",
        )
    )
    earlier.projections.catch_up()
    assert biz_steps(earlier) == ["cbv:BizStep-shipping"]
    earlier.close()

    monkeypatch.undo()
    upgraded = Tracepoint(settings)
    upgraded.projections.catch_up()
    assert biz_steps(upgraded) == [CBV + "BizStep-shipping"]
    upgraded.close()
