"""canonical_epc: every spelling of a GS1 key becomes one canonical GS1 Digital Link URI."""

import pytest

from domain.gs1 import canonical_epc, gs1_check_digit, is_gs1_epc

DL = "https://id.gs1.org/"


@pytest.mark.parametrize(
    ("digits", "check"),
    [
        ("0952123454321", "3"),  # GTIN-14 09521234543213
        ("401234511111", "8"),  # GLN 4012345111118
        ("04012345111111112", "7"),  # SSCC 040123451111111127
        ("9638507", "4"),  # GTIN-8 96385074
        ("0000000000000", "0"),
    ],
)
def test_check_digit_is_the_gs1_mod_10_digit(digits: str, check: str) -> None:
    assert gs1_check_digit(digits) == check


@pytest.mark.parametrize(
    ("urn", "canonical"),
    [
        ("urn:epc:id:sgtin:4012345.011111.9876", "01/04012345111118/21/9876"),
        ("urn:epc:id:sgtin:415056789012.0.987654", "01/04150567890128/21/987654"),
        ("urn:epc:id:sgtin:0614141.812345.6789", "01/80614141123458/21/6789"),
        ("urn:epc:id:sscc:4012345.3111111111", "00/340123451111111111"),
        ("urn:epc:id:sgln:4012345.00005.0", "414/4012345000054"),
        ("urn:epc:id:sgln:4012345.00005.122", "414/4012345000054/254/122"),
        ("urn:epc:id:grai:4012345.00022.334455", "8003/04012345000221334455"),
        ("urn:epc:id:giai:4012345.ABC345", "8004/4012345ABC345"),
        ("urn:epc:id:gsrn:4012345.0000006765", "8018/401234500000067657"),
        ("urn:epc:id:gsrnp:4012345.0000000007", "8017/401234500000000074"),
        ("urn:epc:id:gdti:4012345.00009.PO-4711", "253/4012345000092PO-4711"),
        ("urn:epc:id:gdti:987659999999..9", "253/98765999999929"),
        (
            "urn:epc:id:cpi:0614141.11111111111111-A%23%2F.1234",
            "8010/061414111111111111111-A%23%2F/8011/1234",
        ),
        ("urn:epc:id:sgcn:4012345.99999.44", "255/401234599999044"),
        ("urn:epc:id:ginc:0614141.xyz47%2F11", "401/0614141xyz47%2F11"),
        ("urn:epc:id:gsin:4012345.222333444", "402/40123452223334442"),
        ("urn:epc:id:itip:4012345.011111.01.02.987", "8006/040123451111180102/21/987"),
        (
            "urn:epc:id:upui:1234567.098765.51qIgY)%3C%26Jp3*j7'SDB",
            "01/01234567987651/235/51qIgY%29%3C%26Jp3%2Aj7'SDB",
        ),
        ("urn:epc:id:pgln:4000001.00000", "417/4000001000005"),
        ("urn:epc:id:pgln:999999999999.", "417/9999999999994"),
    ],
)
def test_pure_identity_urn_becomes_digital_link_with_check_digit(urn: str, canonical: str) -> None:
    assert canonical_epc(urn) == DL + canonical


def test_urn_serial_keeps_its_escapes_and_encodes_what_digital_link_escapes() -> None:
    urn = "urn:epc:id:sgtin:0614141.812345.6789%2F%26%25%22!%3F()"
    assert canonical_epc(urn) == DL + "01/80614141123458/21/6789%2F%26%25%22%21%3F%28%29"


def test_grai_of_a_twelve_digit_company_prefix_has_an_empty_asset_type() -> None:
    # The reference normaliser misses this form; TDS allows it.
    assert canonical_epc("urn:epc:id:grai:123456789012..5") == DL + "8003/012345678901285"


def test_lgtin_class_becomes_gtin_with_lot() -> None:
    assert canonical_epc("urn:epc:class:lgtin:4012345.012345.Lot987") == (
        DL + "01/04012345123456/10/Lot987"
    )


@pytest.mark.parametrize(
    ("pattern", "canonical"),
    [
        ("urn:epc:idpat:sgtin:4054739.099914.*", "01/04054739999148"),
        ("urn:epc:idpat:grai:4012345.66666.*", "8003/04012345666663"),
        ("urn:epc:idpat:gdti:4012345.55555.*", "253/4012345555554"),
        ("urn:epc:idpat:sgcn:4012345.99999.*", "255/4012345999990"),
        ("urn:epc:idpat:cpi:4012345.ABC.*", "8010/4012345ABC"),
        ("urn:epc:idpat:itip:4012345.012345.01.02.*", "8006/040123451234560102"),
        ("urn:epc:idpat:upui:4012345.012345.*", "01/04012345123456"),
    ],
)
def test_class_level_pattern_used_as_epc_class_becomes_its_key(
    pattern: str, canonical: str
) -> None:
    assert canonical_epc(pattern) == DL + canonical


def test_pattern_that_is_not_a_class_is_unchanged() -> None:
    assert canonical_epc("urn:epc:idpat:sgtin:4012345.*.*") == "urn:epc:idpat:sgtin:4012345.*.*"


@pytest.mark.parametrize(
    "uri",
    [
        "https://id.gs1.org/01/09521234543213/21/ABC",
        "https://example.com/01/09521234543213/21/ABC",
        "http://example.com/01/09521234543213/21/ABC",
        "https://brand.example.org/products/dl/01/09521234543213/21/ABC",
        "https://id.gs1.org/01/09521234543213/21/ABC?linkType=gs1:pip",
        "https://example.com/01/09521234543213/21/ABC?17=251231#top",
        "https://example.com/gtin/09521234543213/ser/ABC",
        "https://example.com/01/9521234543213/21/ABC",
        "https://example.com/01/09521234543213/10/LOT1/21/ABC",
        "https://example.com/01/09521234543213/22/CPV/10/LOT1/21/ABC",
        "https://id.gs1.org/01/09521234543213/21/ABC/",
    ],
)
def test_digital_link_spellings_of_one_sgtin_share_one_canonical_form(uri: str) -> None:
    assert canonical_epc(uri) == DL + "01/09521234543213/21/ABC"


@pytest.mark.parametrize(
    ("uri", "canonical"),
    [
        ("https://example.com/01/96385074", "01/00000096385074"),
        ("https://example.com/01/614141123452", "01/00614141123452"),
        ("https://example.com/gtin/9780345418913", "01/09780345418913"),
    ],
)
def test_short_gtins_are_padded_to_fourteen_digits(uri: str, canonical: str) -> None:
    assert canonical_epc(uri) == DL + canonical


@pytest.mark.parametrize(
    ("uri", "canonical"),
    [
        ("https://example.com/01/09521234543213/10/LOT1?x=1", "01/09521234543213/10/LOT1"),
        ("https://example.com/01/09521234543213/22/CPV", "01/09521234543213"),
        ("https://example.com/414/4012345000054/254/7", "414/4012345000054/254/7"),
        ("https://example.com/8010/4012345ABC/8011/12", "8010/4012345ABC/8011/12"),
        ("https://example.com/8006/040123451111180102/21/9", "8006/040123451111180102/21/9"),
        ("https://example.com/00/340123451111111111", "00/340123451111111111"),
        ("https://example.com/sscc/340123451111111111", "00/340123451111111111"),
        ("https://id.example.com/8003/040123450007718765", "8003/040123450007718765"),
        ("https://example.com/party/4000001000005", "417/4000001000005"),
        ("https://example.com/01/09521234543213/235/TPX1", "01/09521234543213/235/TPX1"),
    ],
)
def test_digital_link_keeps_only_the_finest_key_qualifier(uri: str, canonical: str) -> None:
    assert canonical_epc(uri) == DL + canonical


def test_digital_link_value_with_characters_an_urn_would_escape_is_percent_encoded() -> None:
    assert canonical_epc("https://id.gs1.org/01/09521234543213/21/A!B") == (
        DL + "01/09521234543213/21/A%21B"
    )


def test_digital_link_and_urn_of_one_escaped_serial_agree() -> None:
    urn = "urn:epc:id:sgtin:952123.0454321.A%2FB"
    assert canonical_epc(urn) == canonical_epc("https://example.com/01/09521234543213/21/A%2FB")


@pytest.mark.parametrize(
    "value",
    [
        "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "urn:example:private:asset:42",
        "urn:epc:id:usdod:2S194.12345678901",
        "urn:epc:id:sgtin:4012345.01111.1",
        "urn:epc:id:sgtin:4012345.011111.",
        "urn:epc:id:sscc:4012345.311111111",
        "https://example.com/things/42",
        "https://id.gs1.org/01/0952123454321X/21/1",
        "https://id.gs1.org/01/09521234543213/21/1/10/L",
        "https://id.gs1.org/01/09521234543213/99/1",
        "https://id.gs1.org/8018/401234500000067657/8019/1",
        "https://ref.gs1.org/cbv/BizStep-shipping",
        "http://",
        "https://",
        "urn:epc:",
        "OBSERVE",
        "",
        "👍",
    ],
)
def test_anything_that_is_not_a_gs1_key_is_returned_unchanged(value: str) -> None:
    assert canonical_epc(value) == value
    assert not is_gs1_epc(value)


def test_canonical_form_is_a_fixed_point() -> None:
    for value in (
        "urn:epc:id:sgtin:4012345.011111.9876",
        "https://example.com/gtin/9521234543213/lot/L1?x=y",
        "urn:epc:id:cpi:0614141.11111111111111-A%23%2F.1234",
        "urn:epc:id:upui:1234567.098765.51qIgY)%3C%26Jp3*j7'SDB",
    ):
        canonical = canonical_epc(value)
        assert canonical_epc(canonical) == canonical


def test_is_gs1_epc_recognises_urns_and_digital_links() -> None:
    assert is_gs1_epc("urn:epc:id:sgtin:4012345.011111.9876")
    assert is_gs1_epc("https://example.com/01/09521234543213")
    assert not is_gs1_epc("urn:epc:id:sgtin:4012345.011111")
