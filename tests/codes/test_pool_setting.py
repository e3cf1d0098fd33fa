"""TRACEPOINT_CODE_POOLS: what a pool setting may say, and what it may not."""

import pytest

from application.codes.pools import CodePool, PoolSettingError, parse_pools


def test_a_pool_is_read_with_its_job_fields() -> None:
    [pool] = parse_pools(
        '[{"type": "sgtin", "product": "p", "minimum": 10, "batch": 50, "length": 10}]'
    )
    assert pool == CodePool("sgtin", "p", 10, 50, {"product": "p", "length": 10})


def test_no_setting_means_no_pools() -> None:
    assert parse_pools("") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ('{"type": "sgtin"}', "JSON list"),
        ('[{"minimum": 1}]', '"batch"'),
        ('[{"batch": 1, "minimum": 0}]', '"minimum"'),
        ('[{"type": "ean", "minimum": 1, "batch": 1}]', '"type"'),
        ('[{"minimum": 1, "batch": 1, "colour": "red"}]', "colour"),
    ],
)
def test_a_bad_pool_setting_is_refused_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(PoolSettingError, match=message):
        parse_pools(text)


def test_a_pool_that_cannot_make_codes_is_refused_at_start() -> None:
    with pytest.raises(PoolSettingError, match='"product"'):
        parse_pools('[{"type": "sgtin", "minimum": 1, "batch": 1}]')
    with pytest.raises(PoolSettingError, match="sscc_company_prefix"):
        parse_pools('[{"type": "sscc", "minimum": 1, "batch": 1}]')


def test_a_pool_does_not_set_what_the_pool_decides() -> None:
    with pytest.raises(PoolSettingError, match='"status"'):
        parse_pools('[{"type": "short_code", "minimum": 1, "batch": 1, "status": "error"}]')


def test_pools_of_a_multi_tenant_installation_name_their_account() -> None:
    with pytest.raises(PoolSettingError, match='"account"'):
        parse_pools('[{"type": "short_code", "minimum": 1, "batch": 1}]', multi_tenant=True)
    [pool] = parse_pools(
        '[{"type": "short_code", "minimum": 1, "batch": 1, "account": "a"}]', multi_tenant=True
    )
    assert pool.account == "a"
