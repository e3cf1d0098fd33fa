"""Who may order, reserve, change and read codes, scans and integrity results."""

from typing import Any

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, ok, user_with
from tests.codes.helpers import codes_of, finished_job, product


def rule(collection: str, action: str, **extra: Any) -> dict[str, Any]:
    return {"collection": collection, "action": action, "fields": ["*"], **extra}


async def test_ordering_codes_needs_create_on_identifier_job(client: Client) -> None:
    key = await product(client)
    reader = await user_with(client, rule("identifier_job", "read"))
    status, _ = await call(
        client, "POST", "/items/identifier_job", {"product": key, "quantity": 1}, token=reader.token
    )
    assert status == 403
    orderer = await user_with(
        client, rule("identifier_job", "create"), rule("identifier_job", "read")
    )
    made = await ok(
        client,
        "POST",
        "/items/identifier_job",
        {"product": key, "quantity": 1},
        token=orderer.token,
    )
    assert made["status"] == "new"


async def test_changing_a_code_needs_update_on_unique_code(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client)
    reader = await user_with(client, rule("unique_code", "read"))
    assert len(await ok(client, "GET", "/items/unique_code", token=reader.token)) == 1
    status, _ = await call(
        client,
        "PATCH",
        f"/items/unique_code/{one['id']}",
        {"status": "assigned"},
        token=reader.token,
    )
    assert status == 403
    assert (await codes_of(client))[0]["status"] == "unassigned"


async def test_an_item_rule_limits_which_codes_a_user_sees_and_changes(
    tracepoint: Tracepoint, client: Client
) -> None:
    mine = await product(client)
    theirs = await product(client, gtin="04012345000016")
    await finished_job(tracepoint, client, product=mine, quantity=2)
    await finished_job(tracepoint, client, product=theirs, quantity=2)
    only_mine = {"product": {"_eq": mine}}
    user = await user_with(
        client,
        rule("unique_code", "read", permissions=only_mine),
        rule("unique_code", "update", permissions=only_mine, fields=["status"]),
    )
    seen = await ok(client, "GET", "/items/unique_code", token=user.token)
    assert {c["product"] for c in seen} == {mine}
    [other, *_] = await codes_of(client, product=theirs)
    status, _ = await call(
        client,
        "PATCH",
        f"/items/unique_code/{other['id']}",
        {"status": "assigned"},
        token=user.token,
    )
    assert status == 403
    changed = await ok(
        client,
        "PATCH",
        f"/items/unique_code/{seen[0]['id']}",
        {"status": "encoded"},
        token=user.token,
    )
    assert changed["status"] == "encoded"
    status, _ = await call(
        client,
        "PATCH",
        f"/items/unique_code/{seen[0]['id']}",
        {"custom_id": "x"},
        token=user.token,
    )
    assert status == 403


async def test_scans_and_results_are_read_by_permission(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=1)
    await client.get("/01/09506000134352/21/UNKNOWN1", allow_redirects=False)
    nobody = await user_with(client, rule("product", "read"))
    for collection in ("code_scan", "integrity_check_result"):
        status, _ = await call(client, "GET", f"/items/{collection}", token=nobody.token)
        assert status == 403
    inspector = await user_with(
        client, rule("code_scan", "read"), rule("integrity_check_result", "read")
    )
    assert len(await ok(client, "GET", "/items/code_scan", token=inspector.token)) == 1
    assert len(await ok(client, "GET", "/items/integrity_check_result", token=inspector.token)) == 1


async def test_scans_cannot_be_written_by_request(client: Client) -> None:
    status, _ = await call(client, "POST", "/items/code_scan", {"scanned": "/x"})
    assert status == 403


async def test_an_inspector_records_and_reviews_a_result(client: Client) -> None:
    made = await ok(
        client,
        "POST",
        "/items/integrity_check_result",
        {"check_source": "inspector", "result": "duplicated", "status": "new", "code": "X"},
    )
    reviewed = await ok(
        client,
        "PATCH",
        f"/items/integrity_check_result/{made['id']}",
        {"status": "reviewed", "review_comments": "Seen in two shops"},
    )
    assert (reviewed["status"], reviewed["review_comments"]) == ("reviewed", "Seen in two shops")


async def test_a_result_outside_the_lists_names_the_allowed_values(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/integrity_check_result", {"result": "counterfeit"}
    )
    assert status == 400
    assert "unrecognized" in body["errors"][0]["message"]
