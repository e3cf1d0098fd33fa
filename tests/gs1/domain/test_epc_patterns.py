"""epc_pattern: EPCIS MATCH_* values as globs over canonical Digital Link identifiers."""

import re

import pytest

from domain.gs1 import Glob, Wildcard, canonical_epc, epc_pattern

DL = "https://id.gs1.org/"
ANY = Wildcard.ANY
ONE = Wildcard.ONE_CHAR

# Canonical ids of company prefix 4012345 (and a few of others), as the indexes hold them.
IDS = {
    "sgtin": DL + "01/04012345111118/21/9876",
    "sgtin other serial": DL + "01/04012345111118/21/1",
    "lgtin": DL + "01/04012345111118/10/L1",
    "gtin": DL + "01/04012345111118",
    "sgtin other item": DL + "01/04012345222227/21/1",
    "sgtin other indicator": DL + "01/14012345111115/21/1",
    "sgtin other company": DL + "01/04012346111117/21/1",
    "sgtin longer company": DL + "01/04012345611113/21/1",
    "upui": DL + "01/04012345111118/235/TPX",
    "sscc": DL + "00/340123451111111111",
    "sscc other company": DL + "00/340123461111111118",
    "gln": DL + "414/4012345000054",
    "gln extension": DL + "414/4012345000054/254/122",
    "gln other location": DL + "414/4012345000061",
    "grai": DL + "8003/04012345000221334455",
    "grai other type": DL + "8003/04012345000332334455",
    "giai": DL + "8004/4012345ABC345",
    "gsrn": DL + "8018/401234500000067657",
    "gsrnp": DL + "8017/401234500000000074",
    "gdti": DL + "253/4012345000092PO-4711",
    "cpi": DL + "8010/4012345ABC/8011/123",
    "cpi longer part": DL + "8010/4012345ABCD/8011/123",
    "sgcn": DL + "255/401234599999044",
    "ginc": DL + "401/4012345333",
    "gsin": DL + "402/40123452223334442",
    "itip": DL + "8006/040123451111180102/21/987",
    "itip other piece": DL + "8006/040123451111180302/21/987",
    "pgln": DL + "417/4012345000009",
    "private": "urn:example:asset:4012345",
}


def glob_regex(glob: Glob) -> re.Pattern[str]:
    """The regular expression a Glob stands for (as a database LIKE would read it)."""
    parts = []
    for part in glob:
        if part is Wildcard.ANY:
            parts.append(".*")
        elif part is Wildcard.ONE_CHAR:
            parts.append(".")
        else:
            parts.append(re.escape(part))
    return re.compile("".join(parts), re.DOTALL)


def matched(value: str) -> set[str]:
    regex = glob_regex(epc_pattern(value))
    return {name for name, uri in IDS.items() if regex.fullmatch(uri)}


def test_exact_urn_is_its_canonical_form() -> None:
    assert epc_pattern("urn:epc:id:sgtin:4012345.011111.9876") == (IDS["sgtin"],)


def test_exact_digital_link_is_its_canonical_form() -> None:
    value = "https://example.com/01/04012345111118/21/9876?linkType=all"
    assert epc_pattern(value) == (IDS["sgtin"],)


def test_exact_private_identifier_is_itself() -> None:
    assert epc_pattern("urn:example:asset:4012345") == ("urn:example:asset:4012345",)


def test_fully_specified_idpat_is_the_identifier_it_names() -> None:
    assert epc_pattern("urn:epc:idpat:sgtin:4012345.011111.9876") == (IDS["sgtin"],)


def test_sgtin_item_pattern_is_the_gtin_then_anything() -> None:
    assert epc_pattern("urn:epc:idpat:sgtin:4012345.011111.*") == (IDS["gtin"], ANY)


def test_sgtin_item_pattern_matches_serials_lots_and_the_gtin_itself() -> None:
    assert matched("urn:epc:idpat:sgtin:4012345.011111.*") == {
        "sgtin",
        "sgtin other serial",
        "lgtin",
        "gtin",
        "upui",
    }


def test_sgtin_company_pattern_puts_the_indicator_digit_first() -> None:
    assert epc_pattern("urn:epc:idpat:sgtin:4012345.*.*") == (DL + "01/", ONE, "4012345", ANY)


def test_sgtin_company_pattern_matches_every_gtin_of_the_company_prefix() -> None:
    assert matched("urn:epc:idpat:sgtin:4012345.*.*") == {
        "sgtin",
        "sgtin other serial",
        "lgtin",
        "gtin",
        "sgtin other item",
        "sgtin other indicator",
        # A GTIN cannot tell a longer company prefix that starts the same way apart.
        "sgtin longer company",
        "upui",
    }


def test_sgtin_all_pattern_matches_every_gtin_based_identifier() -> None:
    assert epc_pattern("urn:epc:idpat:sgtin:*.*.*") == (DL + "01/", ANY)


def test_sscc_company_pattern_puts_the_extension_digit_first() -> None:
    assert epc_pattern("urn:epc:idpat:sscc:4012345.*") == (DL + "00/", ONE, "4012345", ANY)
    assert matched("urn:epc:idpat:sscc:4012345.*") == {"sscc"}


def test_sgln_location_pattern_matches_the_gln_and_its_extensions() -> None:
    assert epc_pattern("urn:epc:idpat:sgln:4012345.00005.*") == (IDS["gln"], ANY)
    assert matched("urn:epc:idpat:sgln:4012345.00005.*") == {"gln", "gln extension"}


def test_sgln_company_pattern_matches_every_location_of_the_company() -> None:
    assert epc_pattern("urn:epc:idpat:sgln:4012345.*.*") == (DL + "414/4012345", ANY)
    assert matched("urn:epc:idpat:sgln:4012345.*.*") == {
        "gln",
        "gln extension",
        "gln other location",
    }


def test_grai_asset_type_pattern_matches_its_serials() -> None:
    assert epc_pattern("urn:epc:idpat:grai:4012345.00022.*") == (DL + "8003/04012345000221", ANY)
    assert matched("urn:epc:idpat:grai:4012345.00022.*") == {"grai"}


def test_grai_company_pattern_keeps_the_leading_zero() -> None:
    assert epc_pattern("urn:epc:idpat:grai:4012345.*.*") == (DL + "8003/04012345", ANY)
    assert matched("urn:epc:idpat:grai:4012345.*.*") == {"grai", "grai other type"}


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("urn:epc:idpat:giai:4012345.*", {"giai"}),
        ("urn:epc:idpat:gsrn:4012345.*", {"gsrn"}),
        ("urn:epc:idpat:gsrnp:4012345.*", {"gsrnp"}),
        ("urn:epc:idpat:gdti:4012345.00009.*", {"gdti"}),
        ("urn:epc:idpat:gdti:4012345.*.*", {"gdti"}),
        ("urn:epc:idpat:sgcn:4012345.99999.*", {"sgcn"}),
        ("urn:epc:idpat:ginc:4012345.*", {"ginc"}),
        ("urn:epc:idpat:gsin:4012345.*", {"gsin"}),
        ("urn:epc:idpat:pgln:4012345.*", {"pgln"}),
        ("urn:epc:idpat:cpi:4012345.*.*", {"cpi", "cpi longer part"}),
    ],
)
def test_company_and_class_patterns_of_the_other_schemes(value: str, names: set[str]) -> None:
    assert matched(value) == names


def test_cpi_part_pattern_matches_instances_of_exactly_that_part() -> None:
    assert epc_pattern("urn:epc:idpat:cpi:4012345.ABC.*") == (DL + "8010/4012345ABC/8011/", ANY)
    assert matched("urn:epc:idpat:cpi:4012345.ABC.*") == {"cpi"}


def test_itip_piece_pattern_matches_that_piece_only() -> None:
    pattern = "urn:epc:idpat:itip:4012345.011111.01.02.*"
    assert epc_pattern(pattern) == (DL + "8006/040123451111180102", ANY)
    assert matched(pattern) == {"itip"}


def test_itip_item_pattern_matches_every_piece() -> None:
    assert matched("urn:epc:idpat:itip:4012345.011111.*.*.*") == {"itip", "itip other piece"}


def test_itip_company_pattern_puts_the_indicator_digit_first() -> None:
    assert epc_pattern("urn:epc:idpat:itip:4012345.*.*.*.*") == (DL + "8006/", ONE, "4012345", ANY)


def test_upui_item_pattern_matches_third_party_extensions_only() -> None:
    assert epc_pattern("urn:epc:idpat:upui:4012345.011111.*") == (IDS["gtin"] + "/235/", ANY)
    assert matched("urn:epc:idpat:upui:4012345.011111.*") == {"upui"}


def test_upui_company_pattern_matches_third_party_extensions_of_the_company() -> None:
    assert epc_pattern("urn:epc:idpat:upui:4012345.*.*") == (
        DL + "01/",
        ONE,
        "4012345",
        ANY,
        "/235/",
        ANY,
    )
    assert matched("urn:epc:idpat:upui:4012345.*.*") == {"upui"}


def test_pattern_with_a_fixed_field_after_a_wildcard_is_literal() -> None:
    value = "urn:epc:idpat:sgtin:4012345.*.9876"
    assert epc_pattern(value) == ("urn:epc:idpat:sgtin:4012345.", ANY, ".9876")


def test_pattern_with_a_malformed_company_prefix_is_literal() -> None:
    assert epc_pattern("urn:epc:idpat:sscc:40X.*") == ("urn:epc:idpat:sscc:40X.", ANY)


def test_digital_link_serial_wildcard_matches_every_serial_of_the_gtin() -> None:
    value = "https://id.gs1.org/01/04012345111118/21/*"
    assert epc_pattern(value) == (IDS["gtin"] + "/21/", ANY)
    assert matched(value) == {"sgtin", "sgtin other serial"}


def test_digital_link_wildcard_on_another_host_is_canonicalised() -> None:
    assert epc_pattern("https://example.com/gtin/4012345111118/ser/*") == (
        IDS["gtin"] + "/21/",
        ANY,
    )


def test_digital_link_wildcard_after_a_lot_drops_the_lot_as_the_canonical_form_does() -> None:
    value = "https://example.com/01/04012345111118/10/L1/21/*"
    assert epc_pattern(value) == (IDS["gtin"] + "/21/", ANY)


def test_digital_link_wildcard_inside_a_serial_keeps_the_start_of_it() -> None:
    value = "https://example.com/01/04012345111118/21/98*"
    assert epc_pattern(value) == (IDS["gtin"] + "/21/98", ANY)
    assert matched(value) == {"sgtin"}


def test_digital_link_wildcard_after_a_whole_key_matches_all_below_it() -> None:
    value = "https://example.com/01/04012345111118*"
    assert epc_pattern(value) == (IDS["gtin"], ANY)
    assert matched(value) == {"sgtin", "sgtin other serial", "lgtin", "gtin", "upui"}


def test_digital_link_wildcard_inside_a_key_only_canonicalises_the_host() -> None:
    value = "https://example.com/414/401234500*"
    assert epc_pattern(value) == (DL + "414/401234500", ANY)
    assert matched(value) == {"gln", "gln extension", "gln other location"}


def test_digital_link_wildcard_for_the_key_value_keeps_the_rest_literal() -> None:
    assert epc_pattern("https://example.com/01/*/21/9876") == (DL + "01/", ANY, "/21/9876")
    assert matched("https://example.com/01/*/21/9876") == {"sgtin"}


def test_other_uri_with_wildcards_is_literal() -> None:
    assert epc_pattern("urn:example:asset:*") == ("urn:example:asset:", ANY)
    assert epc_pattern("https://example.com/things/*/parts/*") == (
        "https://example.com/things/",
        ANY,
        "/parts/",
        ANY,
    )


def test_glob_has_no_empty_text_and_no_repeated_wildcards() -> None:
    assert epc_pattern("**") == (ANY,)
    assert epc_pattern("urn:x:**y") == ("urn:x:", ANY, "y")


def test_exact_value_equals_its_canonical_epc() -> None:
    for value in ("urn:epc:id:sscc:4012345.3111111111", "urn:epc:class:lgtin:4012345.011111.L1"):
        assert epc_pattern(value) == (canonical_epc(value),)
