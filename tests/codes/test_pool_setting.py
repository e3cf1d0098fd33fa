"""TRACEPOINT_CODE_POOLS: what a pool setting may say, and what it may not."""

import pytest

from application.code_pools import CodePool, PoolSettingError, parse_pools


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
