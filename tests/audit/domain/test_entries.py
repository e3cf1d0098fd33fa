"""A leaf's data: one entry's position and stored columns, read back as they were."""

import pytest

from domain.audit.entries import StoredEntry, leaf_data, parse_leaf_data

ENTRY = StoredEntry(12, "e:ab", 3, "captured", b"\x01state")


def test_a_leaf_s_data_reads_back_as_its_entry() -> None:
    assert parse_leaf_data(leaf_data(ENTRY)) == ENTRY


@pytest.mark.parametrize(
    "broken",
    [leaf_data(ENTRY)[:-1], leaf_data(ENTRY) + b"x", b"", b"\xff" * 30],
    ids=["short", "long", "empty", "noise"],
)
def test_bytes_of_another_form_are_refused(broken: bytes) -> None:
    with pytest.raises(ValueError, match="not a leaf's data"):
        parse_leaf_data(broken)


def test_two_different_entries_never_share_their_data() -> None:
    # The lengths in front keep a byte from moving between neighbouring fields.
    moved = StoredEntry(12, "e:a", 3, "bcaptured", b"\x01state")
    assert leaf_data(moved) != leaf_data(ENTRY)
