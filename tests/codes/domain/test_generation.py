"""Code generation in the domain: random codes, SSCC and GRAI keys, plans, ids."""

import random
import uuid
from collections import Counter

import pytest

from domain.codes.character_sets import CHARACTER_SETS, code_space
from domain.codes.chunk import code_id, code_ids
from domain.codes.link_paths import link_path
from domain.codes.plans import PlanError, plan_job
from domain.codes.random_codes import random_codes, random_sample
from domain.codes.serial_keys import KeyPartsError, grai_prefix, sscc
from domain.gs1.check_digit import gs1_check_digit

BASE = "https://id.example.com"


def seeded(seed: int = 1) -> "random.Random":
    return random.Random(seed)


def test_random_codes_have_the_length_and_alphabet_asked_for() -> None:
    source = seeded()
    codes = random_codes(source.randbytes, CHARACTER_SETS["unambiguous"], 9, 500)
    assert len(codes) == 500
    assert all(len(c) == 9 and set(c) <= set(CHARACTER_SETS["unambiguous"]) for c in codes)


def test_every_character_is_about_equally_likely() -> None:
    # 62 characters: a byte modulo 62 would make the first 8 likelier by a quarter.
    alphabet = CHARACTER_SETS["alphanumeric"]
    counts = Counter("".join(random_codes(seeded(2).randbytes, alphabet, 10, 62_000)))
    expected = 10_000
    assert all(abs(counts[c] - expected) < 500 for c in alphabet), counts.most_common(3)


def test_the_unambiguous_set_leaves_out_look_alikes() -> None:
    assert not set("0O1IL") & set(CHARACTER_SETS["unambiguous"])
    assert code_space("unambiguous", 6) == 31**6


def test_a_sample_takes_distinct_items() -> None:
    population = [str(i) for i in range(100)]
    sample = random_sample(seeded(3).randbytes, list(population), 100)
    assert sorted(sample) == sorted(population)


def test_the_gs1_example_sscc_is_built_with_its_check_digit() -> None:
    assert sscc(1, "0614141", 123456789) == "106141411234567897"


def test_a_serial_reference_too_long_for_the_prefix_is_refused() -> None:
    with pytest.raises(KeyPartsError, match="does not fit"):
        sscc(1, "0614141", 10**9)


def test_a_grai_prefix_carries_the_check_digit_over_its_thirteen_digits() -> None:
    fixed = grai_prefix("9521141", "12345")
    assert fixed == "0952114112345" + gs1_check_digit("0952114112345")


def test_a_grai_prefix_and_asset_type_make_twelve_digits() -> None:
    with pytest.raises(KeyPartsError, match="12 digits"):
        grai_prefix("9521141", "123")


def test_a_plan_link_head_agrees_with_the_link_path() -> None:
    plan = plan_job({"product": "p", "quantity": 1}, "09506000134352", BASE, 10)
    assert plan.link_head + "AbC123xy" == BASE + link_path("sgtin", "09506000134352", "AbC123xy")


def test_a_plan_above_the_quantity_limit_is_refused() -> None:
    with pytest.raises(PlanError, match="at most 10"):
        plan_job({"product": "p", "quantity": 11}, "09506000134352", BASE, 10)


def test_an_sscc_plan_must_fit_its_company_prefix() -> None:
    values = {
        "type": "sscc",
        "quantity": 2,
        "sscc_company_prefix": "061414112345",
        "sscc_extension_digit": 0,
        "sscc_start_serial": 9999,
    }
    with pytest.raises(PlanError, match="do not fit"):
        plan_job(values, None, BASE, 10)


def test_a_digital_link_base_must_be_http() -> None:
    with pytest.raises(PlanError, match="http"):
        plan_job(
            {"type": "short_code", "quantity": 1, "domain": {"digital_link_base": "ftp://x"}},
            None,
            BASE,
            10,
        )


def test_code_ids_are_distinct_version_5_uuids() -> None:
    ids = code_ids("codes:job:0", 100_000)
    assert len(set(ids)) == 100_000
    parsed = uuid.UUID(ids[12345])
    assert (parsed.version, parsed.variant) == (5, uuid.RFC_4122)
    assert code_id("codes:job:0", 12345) == ids[12345]
    assert not set(ids) & set(code_ids("codes:job:100000", 10))
