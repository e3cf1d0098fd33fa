"""epc_urn: a GS1 Digital Link URI back to its EPC URN, where the company prefix is known."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.gs1 import canonical_epc
from domain.gs1.link_to_urn import CompanyPrefixes, epc_urn, epc_urns

PREFIXES = CompanyPrefixes(
    ["4012345", "415056789012", "0614141", "987659999999", "1234567", "4000001"]
)


@pytest.mark.parametrize(
    "urn",
    [
        "urn:epc:id:sgtin:4012345.011111.9876",
        "urn:epc:id:sgtin:415056789012.0.987654",
        "urn:epc:id:sgtin:0614141.812345.6789",
        "urn:epc:id:sgtin:0614141.812345.6789%2F%26%25%22!%3F()",
        "urn:epc:id:sscc:4012345.3111111111",
        "urn:epc:id:sgln:4012345.00005.0",
        "urn:epc:id:sgln:4012345.00005.122",
        "urn:epc:id:grai:4012345.00022.334455",
        "urn:epc:id:giai:4012345.ABC345",
        "urn:epc:id:gsrn:4012345.0000006765",
        "urn:epc:id:gsrnp:4012345.0000000007",
        "urn:epc:id:gdti:4012345.00009.PO-4711",
        "urn:epc:id:gdti:987659999999..9",
        "urn:epc:id:cpi:0614141.11111111111111-A%23%2F.1234",
        "urn:epc:id:sgcn:4012345.99999.44",
        "urn:epc:id:ginc:0614141.xyz47%2F11",
        "urn:epc:id:gsin:4012345.222333444",
        "urn:epc:id:itip:4012345.011111.01.02.987",
        "urn:epc:id:upui:1234567.098765.51qIgY)%3C%26Jp3*j7'SDB",
        "urn:epc:id:pgln:4000001.00000",
        "urn:epc:class:lgtin:4012345.011111.LOT7",
        "urn:epc:idpat:sgtin:4012345.033333.*",
        "urn:epc:idpat:grai:4012345.00022.*",
        "urn:epc:idpat:cpi:0614141.123.*",
        "urn:epc:idpat:itip:4012345.011111.01.02.*",
        "urn:epc:idpat:sgcn:4012345.99999.*",
    ],
)
def test_a_digital_link_becomes_the_urn_it_was_made_from(urn: str) -> None:
    assert epc_urn(canonical_epc(urn), PREFIXES) == urn


def test_any_host_and_short_names_are_read() -> None:
    link = "https://brand.example.com/gtin/4012345111118/ser/9876?linkType=all"
    assert epc_urn(link, PREFIXES) == "urn:epc:id:sgtin:4012345.011111.9876"


def test_without_a_known_company_prefix_there_is_no_urn() -> None:
    assert epc_urn("https://id.gs1.org/01/09506000134352/21/1", PREFIXES) is None


def test_the_longest_known_prefix_decides() -> None:
    prefixes = CompanyPrefixes(["401234", "4012345"])
    link = "https://id.gs1.org/414/4012345000054"
    assert epc_urn(link, prefixes) == "urn:epc:id:sgln:4012345.00005.0"


def test_prefixes_an_epc_urn_cannot_carry_are_never_used() -> None:
    prefixes = CompanyPrefixes(["40123", "4012345678901234", "40x2345"])
    assert not prefixes
    assert epc_urn("https://id.gs1.org/414/4012345000054", prefixes) is None


@pytest.mark.parametrize(
    "uri",
    [
        "urn:epc:id:sgtin:4012345.011111.9876",
        "urn:epc:id:bic:CSQU3054383",
        "https://example.com/products/42",
        "urn:uuid:6f0c1b52-0d5e-4c39-9d5a-1a2b3c4d5e6f",
    ],
)
def test_what_is_no_digital_link_of_a_gs1_key_has_no_urn(uri: str) -> None:
    assert epc_urn(uri, PREFIXES) is None


_SERIAL = st.text(
    alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!'()*+,-.:;=_\"%&/<>?",
    min_size=1,
    max_size=20,
)


@given(
    company_prefix=st.from_regex(r"[0-9]{6,12}", fullmatch=True),
    item=st.from_regex(r"[0-9]{7}", fullmatch=True),
    serial=_SERIAL,
)
def test_the_urn_names_the_same_key_as_the_link(
    company_prefix: str, item: str, serial: str
) -> None:
    item_reference = item[: 13 - len(company_prefix)]
    escaped = "".join(
        {'"': "%22", "%": "%25", "&": "%26", "/": "%2F", "<": "%3C", ">": "%3E", "?": "%3F"}.get(
            c, c
        )
        for c in serial
    )
    urn = f"urn:epc:id:sgtin:{company_prefix}.{item_reference}.{escaped}"
    link = canonical_epc(urn)
    assert epc_urn(link, CompanyPrefixes([company_prefix])) == urn


@pytest.mark.parametrize(
    "urn",
    [
        "urn:epc:id:sgln:4012345.00005.0",
        "urn:epc:id:sgln:415056789012..dock-1",
        "urn:epc:idpat:sgtin:0614141.812345.*",
        "urn:epc:id:pgln:0614141.00777",
    ],
)
def test_epc_urns_holds_every_spelling_of_the_key_whatever_its_prefix(urn: str) -> None:
    spellings = epc_urns(canonical_epc(urn))
    assert urn in spellings
    assert {canonical_epc(s) for s in spellings} == {canonical_epc(urn)}


def test_epc_urns_of_what_is_no_gs1_key_is_empty() -> None:
    assert epc_urns("urn:uuid:00000000-0000-4000-8000-000000000001") == ()
