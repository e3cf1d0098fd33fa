"""The query tables hold a GS1 key without the `https://id.gs1.org/` resolver, one to one,
and every EPC pattern matches the stored forms as it matches the identifiers
(projections/epcis/stored_ids.py)."""

import fnmatch
import re

from hypothesis import example, given
from hypothesis import strategies as st

from domain.gs1 import Glob, epc_pattern
from domain.gs1.digital_link import GS1_RESOLVER
from domain.gs1.patterns import ANY, ONE_CHAR
from infrastructure.database import Database
from projections.epcis.stored_ids import canonical_id, matching_any, stored_glob, stored_id
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import Client, capture
from tests.epcis.test_capture import events as found_events

#: Texts near every boundary of the encoding: the resolver and parts of it, digits, `!`.
_PIECES = ["https://id.gs1.org/", "https://id.gs1", "01/", "0", "9", "!", "x", "/", ":", "urn:"]
identifiers = st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)
globs = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.sampled_from([ANY, ONE_CHAR])), min_size=1, max_size=4
).map(tuple)


def _matches(glob: Glob, text: str) -> bool:
    pattern = "".join(
        fnmatch.translate(p)[4:-3] if isinstance(p, str) else (".*" if p is ANY else ".")
        for p in glob
    )
    return re.fullmatch(pattern, text, re.DOTALL) is not None


def test_a_gs1_key_is_held_without_the_resolver() -> None:
    assert stored_id(GS1_RESOLVER + "01/09521234543213/21/7") == "01/09521234543213/21/7"
    assert canonical_id("01/09521234543213/21/7") == GS1_RESOLVER + "01/09521234543213/21/7"


def test_other_identifiers_are_held_as_they_are() -> None:
    assert stored_id("urn:epc:id:sgtin:x") == "urn:epc:id:sgtin:x"
    assert stored_id(GS1_RESOLVER + "qr/7") == GS1_RESOLVER + "qr/7"


@given(identifiers)
def test_every_identifier_reads_back_as_it_was_stored(identifier: str) -> None:
    assert canonical_id(stored_id(identifier)) == identifier


@given(identifiers, identifiers)
def test_two_identifiers_are_never_stored_alike(first: str, second: str) -> None:
    assert (stored_id(first) == stored_id(second)) == (first == second)


@given(globs, identifiers)
@example(("https://id.gs1", ANY), GS1_RESOLVER + "01/7")
@example((ANY, "1/7"), GS1_RESOLVER + "01/7")
def test_a_rewritten_pattern_matches_the_stored_form_of_what_the_pattern_matches(
    glob: Glob, identifier: str
) -> None:
    rewritten = stored_glob(glob)
    if rewritten is not None:
        assert _matches(rewritten, stored_id(identifier)) == _matches(glob, identifier)


def test_the_patterns_of_gs1_keys_are_rewritten_for_the_index() -> None:
    assert stored_glob(epc_pattern("urn:epc:idpat:sgtin:9521234.054321.*")) == (
        "01/09521234543213",
        ANY,
    )
    assert stored_glob((ANY, "/21/7")) is None


def test_patterns_match_the_stored_column_in_sql_as_they_match_identifiers(
    database: Database,
) -> None:
    held = [
        GS1_RESOLVER + "01/09521234543213/21/7",
        GS1_RESOLVER + "00/095212340000000017",
        GS1_RESOLVER + "qr/7",
        "urn:epc:id:sgtin:9521234.054321.7",
        "!odd",
        "01/odd",
    ]
    patterns: list[Glob] = [
        (ANY,),
        (ANY, "/7"),
        ("https://id.gs1", ANY),
        (GS1_RESOLVER, ANY),
        (GS1_RESOLVER + "01/", ANY),
        (GS1_RESOLVER + "q", ANY),
        ("01/", ANY),
        ("!", ANY),
        ("urn:epc:id:sgtin:", ANY),
        (GS1_RESOLVER + "0", ONE_CHAR, "/", ANY),
        ("01/odd",),
    ]
    with database.transaction() as conn:
        conn.execute("CREATE TABLE held_ids (id TEXT NOT NULL)")
        conn.insert_many("held_ids", ("id",), [(stored_id(i),) for i in held])
        for pattern in patterns:
            params: list[object] = []
            condition = matching_any(database.dialect, "id", [pattern], params)
            found = conn.fetchall(f"SELECT id FROM held_ids WHERE {condition}", params)
            assert sorted(canonical_id(r[0]) for r in found) == sorted(
                i for i in held if _matches(pattern, i)
            ), pattern


async def test_an_epc_pattern_that_begins_with_a_wildcard_finds_gs1_keys(client: Client) -> None:
    wanted = object_event(epcList=["urn:epc:id:sgtin:9521234.054321.7"])
    await capture(client, document(wanted, object_event(epcList=["urn:epc:id:sgtin:1.2.3"])))
    found = await found_events(client, MATCH_epc="*/21/7")
    assert [e["epcList"] for e in found] == [wanted["epcList"]]
