"""Sessions, their rotation by refreshes, and what a replaced token presented again does."""

import pytest

from infrastructure.database import Database
from infrastructure.passwords import hash_token
from infrastructure.session_store import Reused, Session, SessionStore


@pytest.fixture
def store(database: Database) -> SessionStore:
    return SessionStore(database)


def test_a_refresh_hands_the_session_to_the_new_token(store: SessionStore) -> None:
    family = store.create("t1", "u1", 1000.0, None, None)
    assert store.rotate("t1", "t2", 100.0, 2000.0) == Session("u1", 2000.0, family)
    assert store.find("t1", 100.0) is None
    assert store.find("t2", 100.0) == Session("u1", 2000.0, family)


def test_a_replaced_token_presented_again_ends_its_family(store: SessionStore) -> None:
    family = store.create("t1", "u1", 1000.0, None, None)
    store.rotate("t1", "t2", 100.0, 2000.0)
    store.rotate("t2", "t3", 110.0, 2000.0)
    assert store.rotate("t1", "t9", 120.0, 2000.0) == Reused(family, 1)
    assert store.find("t3", 120.0) is None
    assert store.rotate("t3", "t4", 130.0, 2000.0) is None


def test_a_reuse_leaves_the_users_other_sign_ins_alone(store: SessionStore) -> None:
    store.create("a1", "u1", 1000.0, None, None)
    other = store.create("b1", "u1", 1000.0, None, None)
    store.rotate("a1", "a2", 100.0, 2000.0)
    store.rotate("a1", "a9", 110.0, 2000.0)
    assert store.find("b1", 110.0) == Session("u1", 1000.0, other)


def test_an_unknown_or_expired_token_is_no_reuse(store: SessionStore) -> None:
    store.create("t1", "u1", 1000.0, None, None)
    assert store.rotate("nope", "t2", 100.0, 2000.0) is None
    assert store.rotate("t1", "t2", 1000.0, 2000.0) is None


def test_replaced_tokens_are_forgotten_once_they_would_have_expired(
    store: SessionStore,
) -> None:
    store.create("t1", "u1", 1000.0, None, None)
    store.rotate("t1", "t2", 100.0, 5000.0)
    store.purge(1000.0)
    assert store.rotate("t1", "t9", 1001.0, 5000.0) is None
    assert store.find("t2", 1001.0) is not None


def test_a_database_of_the_previous_version_gains_reuse_detection(database: Database) -> None:
    """The sessions table of before: the store adds what it needs, the sessions live on."""
    with database.transaction() as conn:
        conn.execute(
            "CREATE TABLE auth_sessions (token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL,"
            " expires_at {real} NOT NULL, ip TEXT, user_agent TEXT, family TEXT NOT NULL)"
        )
        conn.execute(
            "INSERT INTO auth_sessions VALUES (?, 'u1', 1000.0, NULL, NULL, 'f1')",
            (hash_token("t1"),),
        )
    store = SessionStore(database)
    assert store.rotate("t1", "t2", 100.0, 2000.0) == Session("u1", 2000.0, "f1")
    assert store.rotate("t1", "t3", 110.0, 2000.0) == Reused("f1", 1)
