"""Password hashes: Argon2id at the cost the settings give."""

from infrastructure.passwords import DEFAULT_MEMORY_KIB, DEFAULT_TIME_COST, Passwords

CHEAP = Passwords(time_cost=1, memory_kib=32)


def test_new_hashes_take_the_cost_they_were_given() -> None:
    password_hash = CHEAP.hash("secret")
    assert password_hash.startswith("$argon2id$v=19$m=32,t=1,")
    assert CHEAP.verify(password_hash, "secret")
    assert not CHEAP.verify(password_hash, "other")


def test_hashes_of_another_cost_still_verify() -> None:
    default = Passwords(DEFAULT_TIME_COST, DEFAULT_MEMORY_KIB)
    cheap_hash = CHEAP.hash("secret")
    default_hash = default.hash("secret")
    assert default_hash.startswith("$argon2id$v=19$m=65536,t=3,")
    assert default.verify(cheap_hash, "secret")
    assert CHEAP.verify(default_hash, "secret")
    assert not CHEAP.verify(default_hash, "other")


def test_no_hash_matches_no_password() -> None:
    assert not CHEAP.verify(None, "")
    assert not CHEAP.verify(None, "secret")


def test_a_stored_value_that_is_no_hash_matches_no_password() -> None:
    assert not CHEAP.verify("", "")
    assert not CHEAP.verify("not-a-hash", "not-a-hash")
