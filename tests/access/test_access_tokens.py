"""Access tokens verified once are remembered, never past their expiry."""

import time

import pytest

import infrastructure.access_tokens as access_tokens
from infrastructure.access_tokens import AccessTokens, BadAccessToken, ExpiredAccessToken


def test_a_token_verified_again_gives_the_same_claims() -> None:
    tokens = AccessTokens(b"secret")
    token = tokens.issue({"typ": "access", "id": "u1"}, 60)
    assert tokens.verify(token) == tokens.verify(token)
    assert tokens.verify(token)["id"] == "u1"


def test_a_remembered_token_still_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = AccessTokens(b"secret")
    token = tokens.issue({"typ": "access", "id": "u1"}, 60)
    tokens.verify(token)
    later = time.time() + 61
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(ExpiredAccessToken):
        tokens.verify(token)


def test_changing_the_claims_of_a_remembered_token_is_caught() -> None:
    tokens = AccessTokens(b"secret")
    token = tokens.issue({"typ": "access", "id": "u1"}, 60)
    tokens.verify(token)
    header, payload, signature = token.split(".")
    with pytest.raises(BadAccessToken):
        tokens.verify(f"{header}.{payload}x.{signature}")


def test_a_token_of_another_key_is_not_ours_to_accept() -> None:
    ours, theirs = AccessTokens(b"secret"), AccessTokens(b"other")
    token = theirs.issue({"typ": "access", "id": "u1"}, 60)
    theirs.verify(token)
    with pytest.raises(BadAccessToken):
        ours.verify(token)


def test_the_claims_handed_out_cannot_change_what_is_remembered() -> None:
    tokens = AccessTokens(b"secret")
    token = tokens.issue({"typ": "access", "id": "u1"}, 60)
    tokens.verify(token)["id"] = "someone else"
    assert tokens.verify(token)["id"] == "u1"


def test_at_most_so_many_tokens_are_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(access_tokens, "REMEMBERED_TOKENS", 2)
    tokens = AccessTokens(b"secret")
    for n in range(5):
        tokens.verify(tokens.issue({"typ": "access", "id": f"u{n}"}, 60))
    assert len(tokens._verified) == 2
