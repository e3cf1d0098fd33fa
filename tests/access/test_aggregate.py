"""`aggregate` and `groupBy` through the platform API, as Directus answers them, with the
caller's item rule and readable fields applied; and `search` through a replay."""

from typing import Any

import pytest

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, MadeUser, call, code, ok, user_with


async def notifications(client: Client) -> MadeUser:
    """Five notifications: three for the admin (two in the inbox), two for a user who
    may read their own notifications' id, status, subject and recipient."""
    user = await user_with(
        client,
        {
            "collection": "notifications",
            "action": "read",
            "permissions": {"recipient": {"_eq": "$CURRENT_USER"}},
            "fields": ["id", "status", "subject", "recipient"],
        },
    )
    admin = (await ok(client, "GET", "/users/me"))["id"]
    rows = [
        (admin, "inbox", "Hello admin", "first"),
        (admin, "inbox", "Stock low", "second"),
        (admin, "archived", "Old news", "third"),
        (user.id, "inbox", "Hello user", "fourth"),
        (user.id, "archived", "Shipment late", "fifth"),
    ]
    await ok(
        client,
        "POST",
        "/notifications",
        [
            {"recipient": recipient, "status": status, "subject": subject, "message": message}
            for recipient, status, subject, message in rows
        ],
    )
    return user


async def listed(client: Client, query: str, token: str | None = None) -> Any:
    return await ok(client, "GET", f"/notifications?{query}", token=token)


async def test_counts_as_directus_shapes_them(client: Client) -> None:
    await notifications(client)
    assert await listed(client, "aggregate[count]=*") == [{"count": 5}]
    assert await listed(client, "aggregate[count]=id,message") == [
        {"count": {"id": 5, "message": 5}}
    ]
    assert await listed(client, 'aggregate={"countDistinct": ["status"], "max": "id"}') == [
        {"countDistinct": {"status": 2}, "max": {"id": 5}}
    ]
    assert await listed(client, "aggregate[sum]=id&aggregate[avg]=id") == [
        {"sum": {"id": 15}, "avg": {"id": 3.0}}
    ]


async def test_group_by_with_sort_filter_search_and_paging(client: Client) -> None:
    await notifications(client)
    assert await listed(client, "groupBy[]=status&aggregate[count]=*") == [
        {"status": "archived", "count": 2},
        {"status": "inbox", "count": 3},
    ]
    assert await listed(client, "groupBy=status&aggregate[count]=id&sort=-count.id&limit=1") == [
        {"status": "inbox", "count": {"id": 3}}
    ]
    assert await listed(client, "groupBy=status&aggregate[count]=*&search=hello") == [
        {"status": "inbox", "count": 2}
    ]
    query = 'groupBy=status&aggregate[max]=id&filter={"subject": {"_icontains": "LATE"}}'
    assert await listed(client, query) == [{"status": "archived", "max": {"id": 5}}]
    # `fields` is ignored with aggregates.
    assert await listed(client, "fields=subject&aggregate[count]=*") == [{"count": 5}]


async def test_search_body_takes_aggregate_and_group_by(client: Client) -> None:
    await notifications(client)
    body: dict[str, Any] = {
        "query": {"aggregate": {"count": ["*"]}, "groupBy": ["status"], "sort": ["-count"]}
    }
    assert await ok(client, "SEARCH", "/notifications", body) == [
        {"status": "inbox", "count": 3},
        {"status": "archived", "count": 2},
    ]
    body = {"query": {"aggregate": {"min": "subject"}}, "keys": [1, 2]}
    assert await ok(client, "SEARCH", "/notifications", body) == [
        {"min": {"subject": "Hello admin"}}
    ]


@pytest.mark.parametrize(
    ("query", "status", "error"),
    [
        ("aggregate[sum]=subject", 400, "INVALID_QUERY"),
        ("aggregate[median]=id", 400, "INVALID_QUERY"),
        ("aggregate[count]=*&sort=subject", 400, "INVALID_QUERY"),
        ("groupBy=recipient.email", 400, "INVALID_QUERY"),
        ("aggregate[count]=nope", 403, "FORBIDDEN"),
        ("groupBy=nope", 403, "FORBIDDEN"),
    ],
)
async def test_invalid_aggregates_are_refused(
    client: Client, query: str, status: int, error: str
) -> None:
    answer, payload = await call(client, "GET", f"/notifications?{query}")
    assert (answer, code(payload)) == (status, error)


async def test_a_non_admin_aggregates_only_the_items_and_fields_they_may_read(
    client: Client,
) -> None:
    user = await notifications(client)
    assert await listed(client, "aggregate[count]=*", user.token) == [{"count": 2}]
    assert await listed(client, "groupBy=status&aggregate[count]=*", user.token) == [
        {"status": "archived", "count": 1},
        {"status": "inbox", "count": 1},
    ]
    assert await listed(client, "aggregate[count]=*&search=hello", user.token) == [{"count": 1}]
    body = {"query": {"aggregate": {"countDistinct": ["recipient"]}}}
    assert await ok(client, "SEARCH", "/notifications", body, token=user.token) == [
        {"countDistinct": {"recipient": 1}}
    ]
    # `message` is not among the fields the user may read.
    for query in ("aggregate[count]=message", "groupBy=message", "aggregate[count]=*&search=third"):
        status, payload = await call(client, "GET", f"/notifications?{query}", token=user.token)
        if query.endswith("third"):
            # Search looks at readable fields only: nothing found, nothing refused.
            assert (status, payload["data"]) == (200, [{"count": 0}])
        else:
            assert (status, code(payload)) == (403, "FORBIDDEN")


async def test_search_answers_the_same_after_a_replay(
    client: Client, tracepoint: Tracepoint
) -> None:
    await notifications(client)
    queries = [
        "search=hello",
        "search=LATE",
        "search=ll",
        'filter={"message":{"_icontains":"IRS"}}',
    ]
    before = [await listed(client, f"{query}&fields=id") for query in queries]
    assert before[0] == [{"id": 1}, {"id": 4}]
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert [await listed(client, f"{query}&fields=id") for query in queries] == before


async def test_a_batch_delete_by_query_ignores_an_aggregate_in_it(client: Client) -> None:
    await ok(client, "POST", "/folders", [{"name": "gone"}, {"name": "kept"}])
    status, _ = await call(
        client,
        "DELETE",
        "/folders",
        {"query": {"filter": {"name": {"_eq": "gone"}}, "aggregate": {"count": ["*"]}}},
    )
    assert status == 204
    assert [f["name"] for f in await ok(client, "GET", "/folders")] == ["kept"]
