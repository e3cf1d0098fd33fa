"""Password hashes: Argon2id at the cost the settings give."""

from collections.abc import Iterator

import pytest

from infrastructure.passwords import (
    DEFAULT_MEMORY_KIB,
    DEFAULT_TIME_COST,
    hash_password,
    set_hash_cost,
    verify_password,
)


@pytest.fixture
def cheap() -> Iterator[None]:
    set_hash_cost(1, 32)
    yield
    set_hash_cost(DEFAULT_TIME_COST, DEFAULT_MEMORY_KIB)


def test_new_hashes_take_the_cost_that_was_set(cheap: None) -> None:
    password_hash = hash_password("secret")
    assert password_hash.startswith("$argon2id$v=19$m=32,t=1,")
    assert verify_password(password_hash, "secret")
    assert not verify_password(password_hash, "other")


def test_hashes_of_another_cost_still_verify(cheap: None) -> None:
    cheap_hash = hash_password("secret")
    set_hash_cost(DEFAULT_TIME_COST, DEFAULT_MEMORY_KIB)
    assert verify_password(cheap_hash, "secret")
    default_hash = hash_password("secret")
    assert default_hash.startswith("$argon2id$v=19$m=65536,t=3,")
    set_hash_cost(1, 32)
    assert verify_password(default_hash, "secret")
    assert not verify_password(default_hash, "other")


def test_no_hash_matches_no_password(cheap: None) -> None:
    assert not verify_password(None, "")
    assert not verify_password(None, "secret")
