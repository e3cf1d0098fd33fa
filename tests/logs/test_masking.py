"""Secrets are masked by the name of the key that carries them; the rest stays readable."""

import pytest

from api.logs.masking import mask_target, mask_text


def test_a_secret_query_parameter_is_masked_and_the_others_kept() -> None:
    assert (
        mask_target("/users/me?access_token=eyJabc.def.ghi&fields=id,email")
        == "/users/me?access_token=***&fields=id,email"
    )


@pytest.mark.parametrize(
    "name", ["access_token", "token", "refresh_token", "signatureToken", "password", "otp"]
)
def test_each_secret_parameter_name_is_masked(name: str) -> None:
    assert mask_target(f"/x?{name}=s3cr3t&page=2") == f"/x?{name}=***&page=2"


def test_a_percent_encoded_parameter_name_is_recognised() -> None:
    assert mask_target("/x?access%5Ftoken=s3cr3t") == "/x?access%5Ftoken=***"


def test_a_path_without_query_is_left_as_it_is() -> None:
    assert mask_target("/items/products/42") == "/items/products/42"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ('{"email": "a@b.c", "password": "hunter2"}', '{"email": "a@b.c", "password": "***"}'),
        ("{'signatureToken': 'sig', 'dest': 'x'}", "{'signatureToken': '***', 'dest': 'x'}"),
        ("refused refresh_token=abc for 1.2.3.4", "refused refresh_token=*** for 1.2.3.4"),
        ("Authorization: Bearer abc.def", "Authorization: ***"),
        ("Cookie: platform_session_token=abc; theme=dark", "Cookie: ***"),
        ("sent Bearer abc123 to the partner", "sent Bearer *** to the partner"),
        ("link https://x/reset?token=eyJhbGc.eyJzdWI.c2ln", "link https://x/reset?token=***"),
        ("jwt eyJhbGc.eyJzdWI.c2ln seen", "jwt *** seen"),
        (
            "postgresql://app:pw@db:5432/tp unreachable",
            "postgresql://app:***@db:5432/tp unreachable",
        ),
    ],
)
def test_secrets_in_free_text_are_masked(text: str, masked: str) -> None:
    assert mask_text(text) == masked


def test_text_without_secrets_is_unchanged() -> None:
    text = "capture 7 of 12 events at position 4012 took 31 ms"
    assert mask_text(text) == text
