"""GS1 keys of master data records: checks and the standard identifiers derived from them."""

import pytest

from domain.gs1.check_digit import gs1_check_digit
from domain.gs1.epc import canonical_epc
from domain.gs1.identifiers import (
    IdentifierError,
    check_company_prefix,
    check_gln,
    check_gln_extension,
    check_lot_number,
    digital_link,
    location_path,
    lot_path,
    normalise_gtin,
    organisation_path,
    product_path,
    sgln,
)

# Check digits computed, not guessed: the asserts below keep the examples honest.
GTIN_14 = "09506000134352"
GTIN_13 = "9506000134352"
GTIN_12 = "036000291452"
GTIN_8 = "96385074"
GLN = "9506000134376"
PGLN = "9506000000008"
COMPANY_PREFIX = "9506000"
SET_82 = "!\"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"


@pytest.mark.parametrize("key", [GTIN_14, GTIN_13, GTIN_12, GTIN_8, GLN, PGLN])
def test_examples_have_valid_check_digits(key: str) -> None:
    assert gs1_check_digit(key[:-1]) == key[-1]


@pytest.mark.parametrize(
    ("gtin", "gtin_14"),
    [
        (GTIN_14, GTIN_14),
        (GTIN_13, "09506000134352"),
        (GTIN_12, "00036000291452"),
        (GTIN_8, "00000096385074"),
    ],
)
def test_gtin_becomes_its_14_digit_form(gtin: str, gtin_14: str) -> None:
    assert normalise_gtin(gtin) == gtin_14


def test_gtin_is_stripped_of_surrounding_whitespace() -> None:
    assert normalise_gtin(f"  {GTIN_13}\n") == GTIN_14


@pytest.mark.parametrize("gtin", ["", "1234567", "09506000134", "950600013435209", "1234567890"])
def test_gtin_of_another_length_is_refused(gtin: str) -> None:
    with pytest.raises(IdentifierError, match=r'^"gtin" must be 8, 12, 13 or 14 digits'):
        normalise_gtin(gtin)


@pytest.mark.parametrize("gtin", ["0950600013435A", "09506-00134352", "٩٥٠٦٠٠٠١٣٤٣٥٢"])
def test_gtin_with_other_than_ascii_digits_is_refused(gtin: str) -> None:
    with pytest.raises(IdentifierError, match=r'^"gtin" may hold only the digits 0-9$'):
        normalise_gtin(gtin)


def test_gtin_with_a_wrong_check_digit_names_the_expected_one() -> None:
    with pytest.raises(IdentifierError) as raised:
        normalise_gtin("09506000134353")
    assert str(raised.value) == '"gtin" 09506000134353 has a bad check digit: expected 2'


def test_identifier_error_names_the_field_it_was_given() -> None:
    with pytest.raises(IdentifierError) as raised:
        normalise_gtin("96385075", field="trade_item_gtin")
    assert raised.value.field == "trade_item_gtin"
    assert str(raised.value).startswith('"trade_item_gtin" ')


def test_identifier_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="gln"):
        check_gln("")


def test_gln_with_a_valid_check_digit_is_accepted() -> None:
    assert check_gln(f" {GLN} ") == GLN


@pytest.mark.parametrize("gln", ["950600013437", "95060001343760", GTIN_8])
def test_gln_must_be_13_digits(gln: str) -> None:
    with pytest.raises(IdentifierError, match=r'^"gln" must be 13 digits'):
        check_gln(gln)


def test_gln_with_a_wrong_check_digit_names_the_expected_one() -> None:
    with pytest.raises(
        IdentifierError, match=r'^"gln" 9506000134377 has a bad check digit: expected 6$'
    ):
        check_gln("9506000134377")


def test_pgln_errors_name_the_pgln_field() -> None:
    with pytest.raises(IdentifierError) as raised:
        check_gln("9506000000009", field="pgln")
    assert raised.value.field == "pgln"


@pytest.mark.parametrize("prefix", ["0614", "9506000", "950600013437"])
def test_company_prefix_of_4_to_12_digits_is_accepted(prefix: str) -> None:
    assert check_company_prefix(prefix) == prefix


@pytest.mark.parametrize("prefix", ["061", "9506000134376"])
def test_company_prefix_outside_4_to_12_digits_is_refused(prefix: str) -> None:
    with pytest.raises(IdentifierError, match=r'^"organisation_company_prefix" must be 4 to 12'):
        check_company_prefix(prefix)


def test_company_prefix_with_a_non_digit_is_refused() -> None:
    with pytest.raises(IdentifierError, match="may hold only the digits"):
        check_company_prefix("95060O0")


@pytest.mark.parametrize(
    "value", [SET_82[:20], SET_82[20:40], SET_82[40:60], SET_82[60:80], SET_82[80:], "0"]
)
def test_gln_extension_accepts_character_set_82(value: str) -> None:
    assert check_gln_extension(value) == value


@pytest.mark.parametrize("value", [SET_82[:20], SET_82[60:80], "L-2024/07%"])
def test_lot_number_accepts_character_set_82(value: str) -> None:
    assert check_lot_number(value) == value


@pytest.mark.parametrize("value", ["a b", "lot#1", "é", "x~", "a\\b", "[1]"])
def test_lot_number_outside_character_set_82_is_refused(value: str) -> None:
    with pytest.raises(
        IdentifierError, match=r'^"lot_number" holds .* not in GS1 AI character set 82'
    ):
        check_lot_number(value)


def test_gln_extension_outside_character_set_82_is_refused() -> None:
    with pytest.raises(IdentifierError, match=r'^"gln_extension" holds \'@\''):
        check_gln_extension("dock@1")


@pytest.mark.parametrize("value", ["", "   ", "x" * 21])
def test_lot_number_must_be_1_to_20_characters(value: str) -> None:
    with pytest.raises(IdentifierError, match=r'^"lot_number" must be 1 to 20 characters'):
        check_lot_number(value)


def test_gln_extension_longer_than_20_characters_is_refused() -> None:
    with pytest.raises(IdentifierError, match=r"must be 1 to 20 characters, got 21$"):
        check_gln_extension("1" * 21)


def test_product_path_carries_the_14_digit_gtin() -> None:
    assert product_path(GTIN_8) == "/01/00000096385074"


def test_product_path_checks_the_gtin() -> None:
    with pytest.raises(IdentifierError, match="bad check digit"):
        product_path("96385075")


def test_location_path_without_extension() -> None:
    assert location_path(GLN) == f"/414/{GLN}"


@pytest.mark.parametrize("extension", [None, "", "0"])
def test_location_path_leaves_out_no_extension_and_extension_0(extension: str | None) -> None:
    assert location_path(GLN, extension) == f"/414/{GLN}"


def test_location_path_with_extension() -> None:
    assert location_path(GLN, "12") == f"/414/{GLN}/254/12"


def test_location_path_percent_encodes_the_extension() -> None:
    assert location_path(GLN, "dock/2") == f"/414/{GLN}/254/dock%2F2"


def test_organisation_path_carries_the_pgln() -> None:
    assert organisation_path(PGLN) == f"/417/{PGLN}"


def test_organisation_path_errors_name_the_pgln_field() -> None:
    with pytest.raises(IdentifierError, match=r'^"pgln" must be 13 digits'):
        organisation_path("950600000000")


def test_lot_path_carries_the_14_digit_gtin_and_the_lot() -> None:
    assert lot_path(GTIN_13, "ABC123") == f"/01/{GTIN_14}/10/ABC123"


@pytest.mark.parametrize(
    ("lot", "encoded"),
    [
        ("2024/07", "2024%2F07"),
        ("50%", "50%25"),
        ("%2F", "%252F"),
        ("a&b?c", "a%26b%3Fc"),
        ('<"x">', "%3C%22x%22%3E"),
        ("(1)!*+,:", "%281%29%21%2A%2B%2C%3A"),
        ("A-1.b_2'=;", "A-1.b_2'=;"),
    ],
)
def test_lot_path_percent_encodes_the_lot_as_digital_link_does(lot: str, encoded: str) -> None:
    assert lot_path(GTIN_14, lot) == f"/01/{GTIN_14}/10/{encoded}"


def test_lot_path_checks_the_lot_number() -> None:
    with pytest.raises(IdentifierError, match='"lot_number"'):
        lot_path(GTIN_14, "a b")


def test_lot_path_is_its_own_canonical_form() -> None:
    path = lot_path(GTIN_8, SET_82[:20])
    assert (
        canonical_epc(digital_link("https://id.example.com", path)) == "https://id.gs1.org" + path
    )


def test_lot_path_meets_the_lgtin_class_urn_of_the_same_lot() -> None:
    # TDS 2.0 escapes " % & / < > ? in URN components.
    lot = "!\"%&'()*+,-./:;<=>?_"
    urn_lot = "!%22%25%26'()*+,-.%2F:;%3C=%3E%3F_"
    urn = f"urn:epc:class:lgtin:{COMPANY_PREFIX}.0{GTIN_14[8:13]}.{urn_lot}"
    link = digital_link("https://id.example.com", lot_path(GTIN_14, lot))
    assert canonical_epc(urn) == canonical_epc(link)


@pytest.mark.parametrize(
    "base", ["https://id.example.com", "https://id.example.com/", "https://example.com/gs1"]
)
def test_digital_link_joins_base_and_path_with_one_slash(base: str) -> None:
    assert digital_link(base, f"/01/{GTIN_14}") == base.rstrip("/") + f"/01/{GTIN_14}"


def test_digital_link_adds_a_missing_slash() -> None:
    assert digital_link("https://id.example.com", f"01/{GTIN_14}") == (
        f"https://id.example.com/01/{GTIN_14}"
    )


def test_sgln_splits_the_gln_after_the_company_prefix() -> None:
    assert sgln(GLN, None, COMPANY_PREFIX) == "urn:epc:id:sgln:9506000.13437.0"


def test_sgln_carries_the_extension() -> None:
    assert sgln(GLN, "12", COMPANY_PREFIX) == "urn:epc:id:sgln:9506000.13437.12"


@pytest.mark.parametrize("extension", ["", "0"])
def test_sgln_without_extension_says_0(extension: str) -> None:
    assert sgln(GLN, extension, COMPANY_PREFIX) == "urn:epc:id:sgln:9506000.13437.0"


def test_sgln_escapes_the_extension_as_tds_requires() -> None:
    assert sgln(GLN, "a/b%c", COMPANY_PREFIX) == "urn:epc:id:sgln:9506000.13437.a%2Fb%25c"


def test_sgln_location_reference_is_empty_for_a_12_digit_prefix() -> None:
    assert sgln(GLN, None, GLN[:12]) == "urn:epc:id:sgln:950600013437..0"


@pytest.mark.parametrize("prefix", [None, "", "9506001", "0614141"])
def test_sgln_is_none_without_a_company_prefix_that_starts_the_gln(prefix: str | None) -> None:
    assert sgln(GLN, None, prefix) is None


@pytest.mark.parametrize("prefix", ["9506", "95060"])
def test_sgln_is_none_for_a_prefix_too_short_for_an_epc(prefix: str) -> None:
    assert sgln(GLN, None, prefix) is None


def test_sgln_checks_the_gln() -> None:
    with pytest.raises(IdentifierError, match="bad check digit"):
        sgln("9506000134377", None, COMPANY_PREFIX)


@pytest.mark.parametrize(
    "extension", [None, "0", "12", "00", "dock/2", "a%b", SET_82[:20], SET_82[20:40], SET_82[60:80]]
)
@pytest.mark.parametrize("prefix", [COMPANY_PREFIX, GLN[:6], GLN[:12]])
@pytest.mark.parametrize("base", ["https://id.gs1.org", "https://id.example.com"])
def test_sgln_and_location_path_have_one_canonical_form(
    extension: str | None, prefix: str, base: str
) -> None:
    urn = sgln(GLN, extension, prefix)
    assert urn is not None
    link = digital_link(base, location_path(GLN, extension))
    assert canonical_epc(urn) == canonical_epc(link) != urn
