"""The quick routes through EPC URN conversion give what the general rules give."""

import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from domain.gs1 import canonical_epc, gs1_check_digit
from domain.gs1.digital_link import _ENCODE, encode_value
from domain.gs1.epc_urn import _sgtin, urn_key_path

DL = "https://id.gs1.org/"


def _textbook_check_digit(digits: str) -> str:
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def test_check_digit_equals_the_textbook_definition_for_every_length() -> None:
    rnd = random.Random(1)
    for length in range(19):
        for _ in range(50):
            digits = "".join(rnd.choice("0123456789") for _ in range(length))
            assert gs1_check_digit(digits) == _textbook_check_digit(digits), digits


@pytest.mark.parametrize(
    ("urn", "canonical"),
    [
        ("urn:epc:id:sgtin:4012345.011111.0007", DL + "01/04012345111118/21/0007"),
        (
            "urn:epc:id:sgtin:4012345.011111.01234567890123456789",
            DL + "01/04012345111118/21/01234567890123456789",
        ),
        ("urn:epc:id:sgtin:401234567890.1.5", DL + "01/14012345678908/21/5"),
        ("urn:epc:id:sgtin:4012345.011111.1.2", DL + "01/04012345111118/21/1.2"),
        ("urn:epc:id:sgtin:4012345.011111.A%2F1", DL + "01/04012345111118/21/A%2F1"),
        ("urn:epc:class:lgtin:4012345.011111.007", DL + "01/04012345111118/10/007"),
    ],
)
def test_sgtin_urns_with_numeric_and_other_serials(urn: str, canonical: str) -> None:
    assert canonical_epc(urn) == canonical


@pytest.mark.parametrize(
    "urn",
    [
        "urn:epc:id:sgtin:4012345.011111.012345678901234567890",
        "urn:epc:id:sgtin:4012345678901.5",
        "urn:epc:id:sgtin:4012345.0111111.1",
        "urn:epc:id:sgtin:40123.45011111.1",
        "urn:epc:id:sgtin:4012345.011111.\u0661\u0662",
        "urn:epc:id:sgtin:\u0664012345.011111.1",
        "urn:epc:id:sgtin:4012345.011111.1\n",
        "urn:epc:id:sscc:4012345.3111111111\n",
        "urn:epc:id:sgln:4012345.0000\n5.0",
        "urn:epc:id:sgln:4012345.00005",
        "urn:epc:id:grai:4012345.00022.",
    ],
)
def test_malformed_urns_are_unchanged(urn: str) -> None:
    assert canonical_epc(urn) == urn


def test_numeric_sgtin_route_agrees_with_the_sgtin_converter() -> None:
    rnd = random.Random(2)
    for _ in range(2000):
        prefix = "".join(rnd.choice("0123456789") for _ in range(rnd.randint(5, 13)))
        item = "".join(rnd.choice("0123456789") for _ in range(rnd.randint(0, 8)))
        serial = "".join(rnd.choice("0123456789") for _ in range(rnd.randint(0, 22)))
        body = f"{prefix}.{item}.{serial}"
        assert urn_key_path("urn:epc:id:sgtin:" + body) == _sgtin(body), body


@given(st.text())
@example("7")
@example("ABC123")
@example("a!b")
@example("(1)")
@example("\u03a91")  # a letter outside ASCII
@example("\uff11\uff12")  # digits outside ASCII
def test_a_value_is_escaped_as_the_table_escapes_it(value: str) -> None:
    # encode_value returns a value of ASCII letters and digits without walking the table.
    assert encode_value(value) == value.translate(_ENCODE)
