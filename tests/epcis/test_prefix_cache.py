"""What captured documents bound a query's CURIE prefixes to is kept in memory by each
process: a query whose prefixes are kept reads no bindings, and a document that binds a
prefix anew is honoured by the next query of the process that stored it and, once its
runner has moved past it, by every other process on the same database."""

from typing import Any

import pytest

from projections.epcis.prefixes import PrefixReader
from tests.access.test_access_in_memory import _within, other  # noqa: F401 (fixture)
from tests.conftest import AUTH
from tests.epcis.documents import object_event
from tests.epcis.test_custom_vocabulary import EX, OTHER, Client, found, store

CHECKING = {"EQ_bizStep": "ex:checking"}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The prefixes of every look-up of bindings in the prefix table."""
    looked_up: list[tuple[str, ...]] = []
    method = PrefixReader.bindings

    def counted(self: PrefixReader, prefixes: Any, accounts: Any) -> Any:
        looked_up.append(tuple(prefixes))
        return method(self, prefixes, accounts)

    monkeypatch.setattr(PrefixReader, "bindings", counted)
    return looked_up


async def _refused(client: Client) -> bool:
    response = await client.get("/v2/epcis/events", params=CHECKING, headers=AUTH)
    return response.status == 400 and "more than one namespace" in await response.text()


async def test_a_query_whose_prefixes_are_kept_reads_no_bindings(
    client: Client, reads: list[tuple[str, ...]]
) -> None:
    [stored] = await store(client, object_event(bizStep="ex:checking"))
    assert await found(client, CHECKING) == [stored]
    assert reads == [("ex",)]
    assert await found(client, CHECKING) == [stored]
    assert reads == [("ex",)]


async def test_a_document_binding_a_prefix_as_before_keeps_what_is_kept(
    client: Client, reads: list[tuple[str, ...]]
) -> None:
    [first] = await store(client, object_event(bizStep="ex:checking"))
    await found(client, CHECKING)
    [second] = await store(client, object_event(bizStep="ex:checking"))
    assert await found(client, CHECKING) == sorted([first, second])
    assert reads == [("ex",)]


async def test_a_document_binding_a_prefix_anew_is_honoured_by_the_next_query(
    client: Client,
) -> None:
    [here] = await store(client, object_event(bizStep="ex:checking"))
    assert await found(client, CHECKING) == [here]
    await store(client, object_event(bizStep="ex:checking"), bound=OTHER)
    assert await _refused(client)


async def test_a_prefix_first_bound_after_a_query_expands_in_the_next(client: Client) -> None:
    assert await found(client, {"EQ_bizStep": "ex:late"}) == []
    [stored] = await store(client, object_event(bizStep=EX + "late"))
    assert await found(client, {"EQ_bizStep": "ex:late"}) == [stored]


async def test_a_prefix_bound_anew_through_another_process_is_honoured_within_a_poll(
    client: Client,
    other: Client,  # noqa: F811
) -> None:
    [here] = await store(client, object_event(bizStep="ex:checking"))
    assert await found(client, CHECKING) == [here]
    await store(other, object_event(bizStep="ex:checking"), bound=OTHER)
    await _within(10, lambda: _refused(client))
