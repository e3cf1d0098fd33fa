"""Identifier jobs through `/items/identifier_job`: generated codes, formats, limits."""

import re

import pytest

from application.service.runtime import Tracepoint
from domain.gs1.check_digit import gs1_check_digit
from tests.access.helpers import Client, call, code, ok
from tests.codes.helpers import GTIN, codes_of, finished_job, job, product


async def test_an_sgtin_job_generates_its_quantity_of_unassigned_codes(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=25)
    assert done["status"] == "complete"
    assert done["quantity_created"] == 25
    codes = await codes_of(client, identifier_job=done["id"])
    assert len(codes) == 25
    assert {c["status"] for c in codes} == {"unassigned"}
    assert len({c["code"] for c in codes}) == 25


async def test_an_sgtin_code_has_its_digital_link_and_join_key(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client, identifier_job=done["id"])
    assert re.fullmatch(r"[0-9A-Za-z]{8}", one["code"])
    assert one["digital_link"] == f"http://127.0.0.1:8080/01/{GTIN}/21/{one['code']}"
    assert one["epc_join_key"] == f"{GTIN}-{one['code']}"
    assert one["product"] == key
    assert one["type"] == "sgtin"


async def test_codes_follow_the_length_and_character_set(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(
        tracepoint, client, product=key, quantity=50, length=12, character_set="unambiguous"
    )
    codes = await codes_of(client, identifier_job=done["id"])
    assert len(codes) == 50
    for c in codes:
        assert re.fullmatch(r"[2-9A-HJKMNP-Z]{12}", c["code"]), c["code"]


async def test_an_sscc_job_counts_serial_references_up_with_check_digits(
    tracepoint: Tracepoint, client: Client
) -> None:
    done = await finished_job(
        tracepoint,
        client,
        type="sscc",
        quantity=3,
        sscc_company_prefix="0614141",
        sscc_extension_digit=1,
        sscc_start_serial=123456789,
    )
    codes = sorted(c["code"] for c in await codes_of(client, identifier_job=done["id"]))
    # GS1 General Specifications' example SSCC: 1 0614141 123456789 7.
    assert codes == ["106141411234567897", "106141411234567903", "106141411234567910"]
    assert all(c[-1] == gs1_check_digit(c[:-1]) for c in codes)
    [first] = await codes_of(client, code="106141411234567897")
    assert first["digital_link"].endswith("/00/106141411234567897")


async def test_a_grai_job_makes_whole_grais_with_a_serial(
    tracepoint: Tracepoint, client: Client
) -> None:
    done = await finished_job(
        tracepoint,
        client,
        type="grai",
        quantity=2,
        length=10,
        domain={"company_prefix": "9521141", "asset_type": "12345"},
    )
    codes = await codes_of(client, identifier_job=done["id"])
    assert len(codes) == 2
    assert len({c["code"] for c in codes}) == 2
    for c in codes:
        fixed, serial = c["code"][:14], c["code"][14:]
        assert fixed[:13] == "0952114112345"
        assert fixed[13] == gs1_check_digit(fixed[:13])
        assert re.fullmatch(r"[0-9A-Za-z]{10}", serial)
        assert c["digital_link"].endswith(f"/8003/{c['code']}")


async def test_short_codes_are_unique_and_link_to_the_resolver(
    tracepoint: Tracepoint, client: Client
) -> None:
    done = await finished_job(tracepoint, client, type="short_code", quantity=40, length=6)
    codes = await codes_of(client, identifier_job=done["id"])
    assert len({c["code"] for c in codes}) == 40
    assert all(c["digital_link"] == f"http://127.0.0.1:8080/{c['code']}" for c in codes)


async def test_serials_stay_unique_per_gtin_across_jobs(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    # 10^6 numeric serials of six digits: two jobs of 300,000 would collide by chance
    # thousands of times if each did not avoid the other's codes... 3,000 suffice here.
    first = await finished_job(
        tracepoint, client, product=key, quantity=3000, length=6, character_set="numeric"
    )
    second = await finished_job(
        tracepoint, client, product=key, quantity=3000, length=6, character_set="numeric"
    )
    assert first["status"] == second["status"] == "complete"
    codes = await codes_of(client, product=key)
    assert len(codes) == 6000
    assert len({c["code"] for c in codes}) == 6000


async def test_a_job_that_the_code_space_cannot_satisfy_ends_in_error_before_generating(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(
        tracepoint, client, product=key, quantity=95, length=6, character_set="numeric"
    )
    assert done["status"] == "complete"
    tracepoint.codes.jobs.settings  # noqa: B018 - the space below is 10**6 - 95
    failed = await finished_job(
        tracepoint, client, product=key, quantity=999_906, length=6, character_set="numeric"
    )
    assert failed["status"] == "error"
    assert failed["quantity_created"] == 0
    assert "Only 999,905 of the 1,000,000 codes" in failed["error_message"]


async def test_a_job_for_a_product_without_gtin_is_refused(client: Client) -> None:
    created = await ok(client, "POST", "/items/product", {"product_name": "No GTIN"})
    status, body = await call(
        client, "POST", "/items/identifier_job", {"product": created["id"], "quantity": 5}
    )
    assert status == 400
    assert "has no GTIN" in body["errors"][0]["message"]


async def test_an_sgtin_job_needs_a_product(client: Client) -> None:
    status, body = await call(client, "POST", "/items/identifier_job", {"quantity": 5})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"
    assert '"product"' in body["errors"][0]["message"]


async def test_a_quantity_above_the_limit_is_refused(client: Client) -> None:
    key = await product(client)
    status, body = await call(
        client, "POST", "/items/identifier_job", {"product": key, "quantity": 1_000_001}
    )
    assert status == 400
    assert "1,000,000" in body["errors"][0]["message"]


async def test_a_length_below_six_is_refused(client: Client) -> None:
    key = await product(client)
    status, _ = await call(
        client, "POST", "/items/identifier_job", {"product": key, "quantity": 1, "length": 5}
    )
    assert status == 400


async def test_an_extension_digit_outside_0_to_9_is_refused(client: Client) -> None:
    status, _ = await call(
        client,
        "POST",
        "/items/identifier_job",
        {
            "type": "sscc",
            "quantity": 1,
            "sscc_company_prefix": "0614141",
            "sscc_extension_digit": 10,
        },
    )
    assert status == 400


async def test_an_sscc_job_needs_a_company_prefix(client: Client) -> None:
    status, body = await call(
        client,
        "POST",
        "/items/identifier_job",
        {"type": "sscc", "quantity": 1, "sscc_extension_digit": 3},
    )
    assert status == 400
    assert "sscc_company_prefix" in body["errors"][0]["message"]


async def test_a_started_job_keeps_what_it_makes(tracepoint: Tracepoint, client: Client) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=2)
    status, body = await call(
        client, "PATCH", f"/items/identifier_job/{done['id']}", {"quantity": 3}
    )
    assert status == 400
    assert "cannot change" in body["errors"][0]["message"]


async def test_a_new_job_cannot_be_created_complete(client: Client) -> None:
    key = await product(client)
    status, _ = await call(
        client,
        "POST",
        "/items/identifier_job",
        {"product": key, "quantity": 2, "status": "complete"},
    )
    assert status == 400


async def test_codes_cannot_be_created_or_deleted_by_request(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client, identifier_job=done["id"])
    status, _ = await call(client, "POST", "/items/unique_code", {"code": "ABCDEFGH"})
    assert status == 403
    status, _ = await call(client, "DELETE", f"/items/unique_code/{one['id']}")
    assert status == 403


async def test_a_code_status_moves_by_patch(tracepoint: Tracepoint, client: Client) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=3)
    [one, *_] = await codes_of(client, identifier_job=done["id"])
    changed = await ok(
        client, "PATCH", f"/items/unique_code/{one['id']}", {"status": "assigned", "custom_id": "X"}
    )
    assert changed["status"] == "assigned"
    assert changed["custom_id"] == "X"
    assert changed["user_updated"] is not None
    assert [c["id"] for c in await codes_of(client, status="assigned")] == [one["id"]]


async def test_a_code_status_outside_the_list_names_the_allowed_values(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client, identifier_job=done["id"])
    status, body = await call(
        client, "PATCH", f"/items/unique_code/{one['id']}", {"status": "used"}
    )
    assert status == 400
    assert "encoded" in body["errors"][0]["message"]


async def test_what_a_job_generated_is_read_only(tracepoint: Tracepoint, client: Client) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client, identifier_job=done["id"])
    status, _ = await call(client, "PATCH", f"/items/unique_code/{one['id']}", {"code": "X"})
    assert status == 400


async def test_two_sscc_jobs_over_one_range_never_make_an_sscc_twice(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = {
        "type": "sscc",
        "quantity": 20,
        "sscc_company_prefix": "0614141",
        "sscc_extension_digit": 1,
    }
    first = await job(client, **values)
    second = await job(client, **{**values, "sscc_start_serial": 10})
    jobs = tracepoint.codes.jobs
    await tracepoint.blocking.run(jobs.run, first["id"])
    # As if the second was planned before the first wrote anything: only the check made
    # as each chunk is written stands in its way.
    monkeypatch.setattr(jobs, "_check_room", lambda plan, done: None)
    await tracepoint.blocking.run(jobs.run, second["id"])
    await tracepoint.blocking.run(tracepoint.projections.catch_up)
    later = await ok(client, "GET", f"/items/identifier_job/{second['id']}")
    assert later["status"] == "error"
    assert "made by another job" in later["error_message"]
    codes = [c["code"] for c in await codes_of(client, type="sscc")]
    assert len(codes) == len(set(codes))


async def test_a_job_set_back_to_new_after_it_made_codes_keeps_what_it_makes(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await finished_job(tracepoint, client, product=key, quantity=2)
    await ok(client, "PATCH", f"/items/identifier_job/{done['id']}", {"status": "new"})
    status, body = await call(
        client, "PATCH", f"/items/identifier_job/{done['id']}", {"quantity": 5}
    )
    assert status == 400
    assert "quantity_created 2" in body["errors"][0]["message"]


async def test_a_domain_that_is_not_an_object_is_refused(client: Client) -> None:
    status, body = await call(
        client,
        "POST",
        "/items/identifier_job",
        {"type": "short_code", "quantity": 1, "domain": "x"},
    )
    assert status == 400
    assert '"domain"' in body["errors"][0]["message"]
