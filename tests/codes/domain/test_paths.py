"""Digital Link paths of scanned codes: reading the code a scan names, and building paths."""

import pytest

from domain.codes.link_paths import ScannedKey, link_path, parse_scan_path
from domain.gs1.check_digit import gs1_check_digit
from domain.gs1.identifiers import IdentifierError

GTIN_14 = "09506000134352"
GTIN_13 = "9506000134352"
GTIN_12 = "036000291452"
GTIN_8 = "96385074"
# GS1 General Specifications' SSCC example.
SSCC = "106141411234567897"
# A GRAI key of our own: filler 0, company prefix 9521141, asset type 12345. Check digit
# over 0952114112345, weights 3,1,3,… from the right:
#   5·3 + 4·1 + 3·3 + 2·1 + 1·3 + 1·1 + 4·3 + 1·1 + 1·3 + 2·1 + 5·3 + 9·1 + 0·3 = 76,
#   so (10 - 76 mod 10) mod 10 = 4.
GRAI_KEY = "09521141123454"
# The GS1 AI character set 82, all of it.
SET_82 = "!\"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"


def _check_digit(digits: str) -> str:
    """A second, plain mod-10 implementation, to keep the examples honest."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


@pytest.mark.parametrize("key", [GTIN_14, GTIN_13, GTIN_12, GTIN_8, SSCC, GRAI_KEY])
def test_examples_have_valid_check_digits(key: str) -> None:
    assert _check_digit(key[:-1]) == key[-1] == gs1_check_digit(key[:-1])


def test_set_82_has_82_characters() -> None:
    assert len(set(SET_82)) == 82


def test_sgtin_path_gives_gtin_and_serial() -> None:
    assert parse_scan_path(f"/01/{GTIN_14}/21/ABC123") == ScannedKey(
        "sgtin", GTIN_14, serial="ABC123", lot=None
    )


def test_sgtin_path_with_lot_before_serial_gives_the_lot() -> None:
    assert parse_scan_path(f"/01/{GTIN_14}/10/LOT-7/21/ABC123") == ScannedKey(
        "sgtin", GTIN_14, serial="ABC123", lot="LOT-7"
    )


def test_sgtin_path_with_lot_after_serial_is_tolerated() -> None:
    assert parse_scan_path(f"/01/{GTIN_14}/21/ABC123/10/LOT-7") == ScannedKey(
        "sgtin", GTIN_14, serial="ABC123", lot="LOT-7"
    )


@pytest.mark.parametrize("gtin", [GTIN_13, GTIN_12, GTIN_8])
def test_shorter_gtin_becomes_14_digits(gtin: str) -> None:
    scanned = parse_scan_path(f"/01/{gtin}/21/1")
    assert scanned is not None
    assert scanned.key == gtin.zfill(14)


def test_segments_are_percent_decoded() -> None:
    scanned = parse_scan_path(f"/01/{GTIN_14}/10/A%2FB/21/x%25y%26%22z")
    assert scanned == ScannedKey("sgtin", GTIN_14, serial='x%y&"z', lot="A/B")


def test_serial_may_hold_all_of_set_82_in_20_characters() -> None:
    for start in range(0, len(SET_82), 20):
        serial = SET_82[start : start + 20]
        scanned = parse_scan_path(link_path("sgtin", GTIN_14, serial))
        assert scanned is not None
        assert scanned.serial == serial


@pytest.mark.parametrize(
    "gtin",
    [
        "09506000134353",  # bad check digit
        "0950600013435",  # 13 digits, bad check digit
        "950600013435",  # 12 digits, bad check digit
        "9506000134",  # 10 digits
        "095060001343520",  # 15 digits
        "0950600013435A",  # not digits
        "%EF%BC%909506000134352",  # a full-width digit zero
        "%2009506000134352",  # a space before it
    ],
)
def test_invalid_gtin_is_none(gtin: str) -> None:
    assert parse_scan_path(f"/01/{gtin}/21/1") is None


@pytest.mark.parametrize(
    "serial",
    [
        "A" * 21,  # too long
        "A%20B",  # a space is not in set 82
        "A%23B",  # nor is '#'
        "%C3%A9",  # nor any non-ASCII character
        "A%7EB",  # nor '~'
    ],
)
def test_invalid_serial_is_none(serial: str) -> None:
    assert parse_scan_path(f"/01/{GTIN_14}/21/{serial}") is None


def test_serial_of_20_characters_is_accepted() -> None:
    scanned = parse_scan_path(f"/01/{GTIN_14}/21/{'A' * 20}")
    assert scanned is not None
    assert scanned.serial == "A" * 20


def test_invalid_lot_is_none() -> None:
    assert parse_scan_path(f"/01/{GTIN_14}/10/{'L' * 21}/21/1") is None


@pytest.mark.parametrize(
    "path",
    [
        f"/01/{GTIN_14}",  # no serial
        f"/01/{GTIN_14}/10/LOT",  # a lot but no serial
        f"/01/{GTIN_14}/21",  # an AI without its value
        f"/01/{GTIN_14}/21/1/21/2",  # the serial twice
        f"/01/{GTIN_14}/10/L/10/M",  # the lot twice
        f"/01/{GTIN_14}/22/V/21/1",  # a qualifier we do not read
        f"/01/{GTIN_14}/21/1/",  # a trailing slash
        f"//01/{GTIN_14}/21/1",  # an empty segment
        f"01/{GTIN_14}/21/1",  # no leading slash
        f"/gtin/{GTIN_14}/ser/1",  # Digital Link 1.0 short names
        "/414/9506000134376",  # a GLN
        "",
        "/",
    ],
)
def test_other_shapes_are_none(path: str) -> None:
    assert parse_scan_path(path) is None


def test_sscc_path_gives_the_sscc() -> None:
    assert parse_scan_path(f"/00/{SSCC}") == ScannedKey("sscc", SSCC)


@pytest.mark.parametrize(
    "sscc",
    [
        "106141411234567898",  # bad check digit
        "10614141123456789",  # 17 digits
        "1061414112345678970",  # 19 digits
        "10614141123456789X",  # not digits
    ],
)
def test_invalid_sscc_is_none(sscc: str) -> None:
    assert parse_scan_path(f"/00/{sscc}") is None


def test_grai_path_without_serial_gives_the_key() -> None:
    assert parse_scan_path(f"/8003/{GRAI_KEY}") == ScannedKey("grai", GRAI_KEY)


def test_grai_path_keeps_the_serial_in_the_key() -> None:
    assert parse_scan_path(f"/8003/{GRAI_KEY}A%2F1") == ScannedKey("grai", GRAI_KEY + "A/1")


def test_grai_serial_of_16_characters_is_accepted() -> None:
    assert parse_scan_path(f"/8003/{GRAI_KEY}{'S' * 16}") == ScannedKey("grai", GRAI_KEY + "S" * 16)


@pytest.mark.parametrize(
    "grai",
    [
        "09521141123455",  # bad check digit
        "0952114112345",  # 13 digits
        f"{GRAI_KEY}{'S' * 17}",  # serial too long
        f"{GRAI_KEY}A%20B",  # a space in the serial
        "0952114112345X",  # no check digit
    ],
)
def test_invalid_grai_is_none(grai: str) -> None:
    assert parse_scan_path(f"/8003/{grai}") is None


def test_grai_without_the_0_filler_is_none() -> None:
    grai = "19521141123451"
    assert _check_digit(grai[:-1]) == grai[-1]
    assert parse_scan_path(f"/8003/{grai}") is None


@pytest.mark.parametrize("code", ["abc123", "A1B2C3D4", "Z" * 20, "123456"])
def test_single_segment_is_a_short_code(code: str) -> None:
    assert parse_scan_path(f"/{code}") == ScannedKey("short_code", code)


@pytest.mark.parametrize(
    "code",
    [
        "abc12",  # 5 characters
        "Z" * 21,  # 21 characters
        "abc-123",  # punctuation
        "abc%20123",  # a space, once decoded
        "abcdé1",  # not ASCII
        "favicon.ico",
    ],
)
def test_invalid_short_code_is_none(code: str) -> None:
    assert parse_scan_path(f"/{code}") is None


def test_sgtin_link_path_is_gtin_14_and_encoded_serial() -> None:
    assert link_path("sgtin", GTIN_13, "A/B&C") == f"/01/{GTIN_14}/21/A%2FB%26C"


def test_sgtin_link_path_needs_a_serial() -> None:
    with pytest.raises(ValueError, match="serial"):
        link_path("sgtin", GTIN_14)


def test_sgtin_link_path_refuses_a_bad_gtin() -> None:
    with pytest.raises(IdentifierError):
        link_path("sgtin", "09506000134353", "1")


def test_sscc_link_path() -> None:
    assert link_path("sscc", SSCC) == f"/00/{SSCC}"


def test_grai_link_path_encodes_the_serial() -> None:
    assert link_path("grai", f"{GRAI_KEY}A/1") == f"/8003/{GRAI_KEY}A%2F1"


def test_short_code_link_path() -> None:
    assert link_path("short_code", "abc123") == "/abc123"


def test_unknown_kind_link_path_raises() -> None:
    with pytest.raises(ValueError, match="sgtin, sscc, grai, short_code"):
        link_path("giai", "123")


@pytest.mark.parametrize(
    ("kind", "key", "serial"),
    [
        ("sgtin", GTIN_14, "AB12"),
        ("sgtin", GTIN_14, "!\"%&'()*+,-./:;<=>?_"),
        ("sscc", SSCC, None),
        ("grai", GRAI_KEY, None),
        ("grai", f"{GRAI_KEY}%/?&\"'", None),
        ("short_code", "Xy7Kp92Q", None),
    ],
)
def test_link_path_round_trips(kind: str, key: str, serial: str | None) -> None:
    assert parse_scan_path(link_path(kind, key, serial)) == ScannedKey(kind, key, serial=serial)
