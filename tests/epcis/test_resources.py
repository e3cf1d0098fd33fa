"""The REST binding's resources: `GET /v2/epcis`, the value collections (`/eventTypes`,
`/epcs`, `/bizSteps`, `/bizLocations`, `/readPoints`, `/dispositions`), each value and
its events, for the admin and for a partner whose read rule limits what it sees."""

from typing import Any
from urllib.parse import quote

import pytest
from yarl import URL

from domain.epcis.cbv import BIZ_STEPS, DISPOSITIONS
from tests.access.helpers import Client, user_with
from tests.conftest import AUTH
from tests.epcis.documents import CONTEXT, aggregation_event, document, object_event
from tests.epcis.test_capture import capture
from tests.epcis.test_paging import LINK

SHIPPED = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000a",
    epcList=["urn:epc:id:sgtin:4012345.011111.1001"],
    bizStep="shipping",
    disposition="in_transit",
    readPoint={"id": "urn:epc:id:sgln:4012345.00001.0"},
    bizLocation={"id": "urn:epc:id:sgln:4012345.00001.0"},
)
RECEIVED = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000b",
    epcList=["https://id.gs1.org/01/04012345111118/21/1002"],
    bizStep="urn:epcglobal:cbv:bizstep:receiving",
    disposition="in_progress",
    readPoint={"id": "urn:epc:id:sgln:4012345.00002.0"},
    bizLocation={"id": "https://example.com/sites/berlin"},
)
PACKED = aggregation_event(
    "urn:epc:id:sscc:4012345.0000000001",
    ["urn:epc:id:sgtin:4012345.011111.1001"],
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000c",
    bizStep="https://vocabulary.example.com/checking",
    disposition=None,
)

CHECKING = "https://vocabulary.example.com/checking"
CUSTOM_DISPOSITION = "https://vocabulary.example.com/quarantined"
SGTIN_1001 = "https://id.gs1.org/01/04012345111118/21/1001"
SGTIN_1002 = "https://id.gs1.org/01/04012345111118/21/1002"
SSCC = "https://id.gs1.org/00/040123450000000016"
GLN_1 = "https://id.gs1.org/414/4012345000016"
GLN_2 = "https://id.gs1.org/414/4012345000023"


@pytest.fixture
async def stored(client: Client) -> Client:
    response = await capture(client, document(SHIPPED, RECEIVED, PACKED))
    assert response.status == 201, await response.text()
    return client


async def get(client: Client, path: str, token: str | None = None, **headers: str) -> Any:
    auth = AUTH if token is None else {"Authorization": f"Bearer {token}"}
    return await client.get(path, headers={**auth, **headers})


async def members(client: Client, path: str, token: str | None = None) -> list[str]:
    response = await get(client, path, token)
    assert response.status == 200, await response.text()
    body = await response.json()
    assert body["type"] == "Collection"
    return list(body["member"])


async def event_ids(client: Client, path: str, token: str | None = None) -> list[str]:
    response = await get(client, path, token)
    assert response.status == 200, await response.text()
    body = await response.json()
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return sorted(event["eventID"][-1] for event in events)


def path_id(value: str) -> str:
    return quote(value, safe="")


@pytest.fixture
async def partner(stored: Client) -> str:
    """The token of a partner who may read the shipping events only."""
    made = await user_with(
        stored,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_eq": "shipping"}},
        },
    )
    return made.token


async def test_the_top_level_lists_the_nine_resources(client: Client) -> None:
    body = await (await get(client, "/v2/epcis")).json()
    assert body["@context"] == [CONTEXT]
    assert body["type"] == "Collection"
    assert sorted(body["member"]) == sorted(
        [
            "queries",
            "capture",
            "events",
            "eventTypes",
            "epcs",
            "readPoints",
            "bizLocations",
            "dispositions",
            "bizSteps",
        ]
    )


async def test_event_types_lists_the_types_of_stored_events(stored: Client) -> None:
    assert await members(stored, "/v2/epcis/eventTypes") == ["AggregationEvent", "ObjectEvent"]


async def test_biz_steps_lists_every_standard_step_as_a_bare_word_and_custom_ones_as_iris(
    stored: Client,
) -> None:
    assert sorted(await members(stored, "/v2/epcis/bizSteps?perPage=100")) == sorted(
        [*BIZ_STEPS, CHECKING]
    )


async def test_dispositions_lists_every_standard_disposition_and_custom_ones(
    client: Client,
) -> None:
    await capture(client, document(object_event(disposition=CUSTOM_DISPOSITION)))
    assert sorted(await members(client, "/v2/epcis/dispositions?perPage=100")) == sorted(
        [*DISPOSITIONS, CUSTOM_DISPOSITION]
    )


async def test_with_nothing_stored_the_cbv_collections_list_the_standard_values(
    client: Client,
) -> None:
    assert sorted(await members(client, "/v2/epcis/bizSteps?perPage=100")) == sorted(BIZ_STEPS)
    assert sorted(await members(client, "/v2/epcis/dispositions?perPage=100")) == sorted(
        DISPOSITIONS
    )


async def test_the_biz_steps_page_with_their_custom_values_each_once_in_index_order(
    stored: Client,
) -> None:
    everything = await members(stored, "/v2/epcis/bizSteps?perPage=100")
    paged: list[str] = []
    url: str | None = "/v2/epcis/bizSteps?perPage=7"
    while url:
        response = await get(stored, url)
        assert response.status == 200, await response.text()
        page = (await response.json())["member"]
        assert len(page) <= 7
        paged.extend(page)
        link = response.headers.get("Link")
        match = LINK.match(link) if link else None
        url = URL(match["url"]).path_qs if match else None
    assert paged == everything
    assert len(paged) == len(BIZ_STEPS) + 1
    # In the order of their indexed forms: the standard ones are GS1 Web URIs, which
    # come before `https://vocabulary.example.com/…`.
    assert paged[-1] == CHECKING


@pytest.mark.parametrize(
    "path",
    [
        "/v2/epcis/bizSteps/destroying",
        "/v2/epcis/bizSteps/urn:epcglobal:cbv:bizstep:destroying",
        "/v2/epcis/bizSteps/" + path_id("https://ref.gs1.org/cbv/BizStep-destroying"),
        "/v2/epcis/dispositions/recalled",
    ],
)
async def test_a_standard_value_no_event_holds_is_a_member_without_events(
    stored: Client, path: str
) -> None:
    body = await (await get(stored, path)).json()
    assert body["member"] == ["events"]
    assert await event_ids(stored, path + "/events") == []


async def test_epcs_lists_every_epc_once_in_its_canonical_form(stored: Client) -> None:
    assert sorted(await members(stored, "/v2/epcis/epcs")) == sorted([SSCC, SGTIN_1001, SGTIN_1002])


async def test_without_the_epc_format_header_epcs_are_listed_as_digital_link(
    stored: Client,
) -> None:
    response = await get(stored, "/v2/epcis/epcs")
    assert response.headers["GS1-EPC-Format"] == "Always_GS1_Digital_Link"
    assert sorted((await response.json())["member"]) == sorted([SSCC, SGTIN_1001, SGTIN_1002])


@pytest.mark.parametrize("epc_format", ["Never_Translates", "No_Preference"])
async def test_epcs_asked_as_captured_are_listed_canonical_and_the_header_says_so(
    stored: Client, epc_format: str
) -> None:
    response = await get(stored, "/v2/epcis/epcs", **{"GS1-EPC-Format": epc_format})
    assert response.headers["GS1-EPC-Format"] == "Always_GS1_Digital_Link"
    assert sorted((await response.json())["member"]) == sorted([SSCC, SGTIN_1001, SGTIN_1002])


async def test_read_points_and_biz_locations_list_the_places_of_stored_events(
    stored: Client,
) -> None:
    assert sorted(await members(stored, "/v2/epcis/readPoints")) == [GLN_1, GLN_2]
    assert sorted(await members(stored, "/v2/epcis/bizLocations")) == [
        "https://example.com/sites/berlin",
        GLN_1,
    ]


async def test_a_collection_of_nothing_stored_is_empty(client: Client) -> None:
    assert await members(client, "/v2/epcis/epcs") == []


async def test_a_collection_pages_like_events_and_its_links_give_every_value_once(
    client: Client,
) -> None:
    await capture(client, document(*[object_event() for _ in range(7)]))
    everything = await members(client, "/v2/epcis/epcs?perPage=100")
    paged: list[str] = []
    url: str | None = "/v2/epcis/epcs?perPage=3"
    while url:
        response = await get(client, url)
        assert response.status == 200, await response.text()
        page = (await response.json())["member"]
        assert len(page) <= 3
        paged.extend(page)
        link = response.headers.get("Link")
        match = LINK.match(link) if link else None
        url = URL(match["url"]).path_qs if match else None
    assert len(everything) == 7
    assert paged == everything


async def test_a_collection_refuses_query_parameters_other_than_paging(client: Client) -> None:
    response = await get(client, "/v2/epcis/bizSteps?EQ_bizStep=shipping")
    assert response.status == 400
    assert (await response.json())["type"] == "epcisException:QueryParameterException"


async def test_a_collection_refuses_a_page_token_of_another_collection(stored: Client) -> None:
    response = await get(stored, "/v2/epcis/epcs?perPage=1")
    token = URL(LINK.match(response.headers["Link"])["url"]).query["nextPageToken"]
    refused = await get(stored, f"/v2/epcis/bizSteps?nextPageToken={token}")
    assert refused.status == 400


async def test_a_value_lists_its_events_as_its_sub_resource(stored: Client) -> None:
    body = await (await get(stored, "/v2/epcis/bizSteps/shipping")).json()
    assert body == {"@context": [CONTEXT], "type": "Collection", "member": ["events"]}


@pytest.mark.parametrize(
    "path",
    [
        "/v2/epcis/eventTypes/AggregationEvent",
        "/v2/epcis/bizSteps/" + path_id("https://ref.gs1.org/cbv/BizStep-receiving"),
        "/v2/epcis/dispositions/in_transit",
        "/v2/epcis/epcs/urn:epc:id:sgtin:4012345.011111.1002",
        "/v2/epcis/epcs/" + path_id(SGTIN_1001),
        "/v2/epcis/readPoints/urn:epc:id:sgln:4012345.00002.0",
        "/v2/epcis/bizLocations/" + path_id("https://example.com/sites/berlin"),
    ],
)
async def test_a_stored_value_is_found_in_any_of_its_spellings(stored: Client, path: str) -> None:
    assert (await get(stored, path)).status == 200


@pytest.mark.parametrize(
    "path",
    [
        "/v2/epcis/eventTypes/TransformationEvent",
        "/v2/epcis/eventTypes/NoSuchEvent",
        "/v2/epcis/bizSteps/" + path_id("https://vocabulary.example.com/nothing"),
        "/v2/epcis/bizSteps/no_such_step",
        "/v2/epcis/dispositions/urn:epcglobal:cbv:disp:no_such_disposition",
        "/v2/epcis/epcs/urn:epc:id:sgtin:4012345.011111.9999",
        "/v2/epcis/epcs/urn:epc:idpat:sgtin:4012345.011111.*",
        "/v2/epcis/readPoints/" + path_id("https://example.com/nowhere"),
    ],
)
async def test_a_value_no_event_holds_is_404(stored: Client, path: str) -> None:
    response = await get(stored, path)
    assert response.status == 404
    assert (await response.json())["type"] == "epcisException:NoSuchResourceException"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/v2/epcis/eventTypes/ObjectEvent/events", ["a", "b"]),
        ("/v2/epcis/bizSteps/shipping/events", ["a"]),
        ("/v2/epcis/dispositions/in_progress/events", ["b"]),
        (f"/v2/epcis/epcs/{path_id(SGTIN_1001)}/events", ["a", "c"]),
        ("/v2/epcis/readPoints/urn:epc:id:sgln:4012345.00001.0/events", ["a", "c"]),
        (f"/v2/epcis/bizLocations/{path_id('https://example.com/sites/berlin')}/events", ["b"]),
    ],
)
async def test_the_events_of_a_value_are_those_that_hold_it(
    stored: Client, path: str, expected: list[str]
) -> None:
    assert await event_ids(stored, path) == expected


async def test_the_events_of_a_value_take_further_query_parameters(stored: Client) -> None:
    path = f"/v2/epcis/epcs/{path_id(SGTIN_1001)}/events?eventType=AggregationEvent"
    assert await event_ids(stored, path) == ["c"]


async def test_further_parameters_that_exclude_every_event_give_an_empty_document(
    stored: Client,
) -> None:
    assert await event_ids(stored, "/v2/epcis/bizSteps/shipping/events?EQ_action=DELETE") == []


async def test_the_parameter_the_path_implies_cannot_be_given_again(stored: Client) -> None:
    response = await get(stored, "/v2/epcis/bizSteps/shipping/events?EQ_bizStep=receiving")
    assert response.status == 400
    assert (await response.json())["type"] == "epcisException:QueryParameterException"


async def test_the_events_of_a_value_no_event_holds_are_404(stored: Client) -> None:
    path = "/v2/epcis/bizSteps/" + path_id("https://vocabulary.example.com/nothing")
    response = await get(stored, path + "/events")
    assert response.status == 404
    assert (await response.json())["type"] == "epcisException:NoSuchResourceException"


async def test_the_events_of_a_value_page_with_links_that_keep_the_encoded_path(
    client: Client,
) -> None:
    step = "https://vocabulary.example.com/checking"
    await capture(client, document(*[object_event(bizStep=step) for _ in range(3)]))
    url: str | None = f"/v2/epcis/bizSteps/{path_id(step)}/events?perPage=2"
    seen = 0
    while url:
        response = await get(client, url)
        assert response.status == 200, await response.text()
        body = await response.json()
        seen += len(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"])
        link = response.headers.get("Link")
        match = LINK.match(link) if link else None
        url = URL(match["url"], encoded=True).raw_path_qs if match else None
    assert seen == 3


class TestRuleLimitedPartner:
    """A partner who may read the shipping events only."""

    async def test_sees_only_the_values_of_events_it_may_read(
        self, stored: Client, partner: str
    ) -> None:
        assert await members(stored, "/v2/epcis/epcs", partner) == [SGTIN_1001]
        assert await members(stored, "/v2/epcis/bizLocations", partner) == [GLN_1]
        assert await members(stored, "/v2/epcis/eventTypes", partner) == ["ObjectEvent"]

    async def test_sees_the_standard_steps_but_no_custom_step_it_may_not_read(
        self, stored: Client, partner: str
    ) -> None:
        assert sorted(await members(stored, "/v2/epcis/bizSteps?perPage=100", partner)) == sorted(
            BIZ_STEPS
        )

    async def test_never_learns_that_a_value_it_may_not_read_exists(
        self, stored: Client, partner: str
    ) -> None:
        for path in (
            f"/v2/epcis/epcs/{path_id(SSCC)}",
            f"/v2/epcis/epcs/{path_id(SSCC)}/events",
            f"/v2/epcis/bizSteps/{path_id(CHECKING)}",
            f"/v2/epcis/bizSteps/{path_id(CHECKING)}/events",
            "/v2/epcis/eventTypes/AggregationEvent/events",
        ):
            response = await get(stored, path, partner)
            assert response.status == 404, path

    async def test_a_standard_step_of_events_it_may_not_read_has_no_events_for_it(
        self, stored: Client, partner: str
    ) -> None:
        assert (await get(stored, "/v2/epcis/bizSteps/receiving", partner)).status == 200
        assert await event_ids(stored, "/v2/epcis/bizSteps/receiving/events", partner) == []

    async def test_reads_only_its_events_of_a_value_it_shares_with_others(
        self, stored: Client, partner: str
    ) -> None:
        assert await event_ids(stored, f"/v2/epcis/epcs/{path_id(SGTIN_1001)}/events", partner) == [
            "a"
        ]

    async def test_pages_through_its_values_only(self, client: Client) -> None:
        await capture(
            client,
            document(
                *[object_event() for _ in range(4)],
                *[object_event(bizStep="receiving") for _ in range(4)],
            ),
        )
        made = await user_with(
            client,
            {
                "collection": "epcis_event",
                "action": "read",
                "permissions": {"bizStep": {"_eq": "shipping"}},
            },
        )
        paged: list[str] = []
        url: str | None = "/v2/epcis/epcs?perPage=3"
        while url:
            response = await get(client, url, made.token)
            paged.extend((await response.json())["member"])
            link = response.headers.get("Link")
            match = LINK.match(link) if link else None
            url = URL(match["url"]).path_qs if match else None
        assert len(paged) == 4
        assert len(set(paged)) == 4


async def test_epcs_are_listed_as_urns_where_the_company_prefix_is_known(stored: Client) -> None:
    organisation = await stored.post(
        "/items/organisation",
        json={"organisation_name": "Maker", "organisation_company_prefix": "4012345"},
        headers=AUTH,
    )
    assert organisation.status == 200, await organisation.text()
    response = await get(stored, "/v2/epcis/epcs", **{"GS1-EPC-Format": "Always_EPC_URN"})
    assert response.headers["GS1-EPC-Format"] == "Always_EPC_URN"
    assert sorted((await response.json())["member"]) == [
        "urn:epc:id:sgtin:4012345.011111.1001",
        "urn:epc:id:sgtin:4012345.011111.1002",
        "urn:epc:id:sscc:4012345.0000000001",
    ]
