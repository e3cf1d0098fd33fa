"""The stored tree answers as the tree of its leaves does: roots and proofs from the stored
nodes, from the leaves where nodes are not built yet, and every position's leaf found."""

import random

from domain.audit.entries import StoredEntry, entry_leaf
from domain.audit.merkle import LeafList, consistency_path, inclusion_path, root
from infrastructure.audit.leaf_writer import LeafWriter
from infrastructure.audit.tree_store import TreeStore
from infrastructure.database import Database


def _entries(positions: list[int]) -> list[StoredEntry]:
    return [StoredEntry(p, f"e:{p}", 1, "captured", p.to_bytes(8, "big")) for p in positions]


def _append(database: Database, first_index: int, entries: list[StoredEntry]) -> None:
    with database.transaction() as conn:
        writer = LeafWriter(conn.dialect.name)
        for statement in writer.ddl():
            conn.execute(statement)
        writer.write(conn.raw.cursor(), first_index, entries)


def _tree(database: Database, positions: list[int]) -> tuple[TreeStore, list[bytes]]:
    """A stored tree of leaves of entries at these positions, in order."""
    tree = TreeStore(database)
    entries = _entries(positions)
    _append(database, 0, entries)
    return tree, [entry_leaf(e) for e in entries]


def test_roots_and_proofs_agree_with_the_leaves_before_and_after_the_nodes_are_built(
    database: Database,
) -> None:
    tree, hashes = _tree(database, list(range(1, 701)))
    reference = LeafList(hashes)
    sizes = [1, 17, 255, 256, 257, 511, 512, 513, 700]
    for built in (False, True):
        if built:
            tree.build()
        for size in sizes:
            assert root(tree, size) == root(reference, size), (built, size)
            index = size // 3
            assert inclusion_path(tree, index, size) == inclusion_path(reference, index, size)
            first = size // 2
            assert consistency_path(tree, first, size) == consistency_path(reference, first, size)


def test_building_twice_or_after_more_leaves_adds_only_the_new_nodes(database: Database) -> None:
    tree, hashes = _tree(database, list(range(1, 601)))
    tree.build()
    tree.build()
    more = _entries(list(range(601, 1101)))
    _append(database, 600, more)
    tree.build()
    reference = LeafList([*hashes, *(entry_leaf(e) for e in more)])
    assert root(tree, 1100) == root(reference, 1100)
    with database.transaction(write=False) as conn:
        counts = dict(conn.fetchall("SELECT level, COUNT(*) FROM audit_nodes GROUP BY level"))
    assert counts == {8: 4, 9: 2, 10: 1}


def test_leaves_of_consecutive_positions_are_stored_as_one_run(database: Database) -> None:
    _tree(database, [1, 2, 3, 5, 6, 9])
    with database.transaction(write=False) as conn:
        rows = conn.fetchall(
            "SELECT first_index, first_position, length(hashes) FROM audit_leaves"
            " ORDER BY first_index"
        )
    assert [tuple(r) for r in rows] == [(0, 1, 96), (3, 5, 64), (5, 9, 32)]


def test_every_position_finds_its_leaf_across_many_gaps(database: Database) -> None:
    rng = random.Random(7)
    positions, position = [], 0
    for _ in range(1500):
        position += 1 + (rng.randrange(5) if rng.random() < 0.3 else 0)
        positions.append(position)
    tree, hashes = _tree(database, positions)
    # Both ends and a sample between (every one takes a few statements).
    for index in [0, 1, *rng.sample(range(2, 1498), 150), 1498, 1499]:
        assert tree.leaf_of(positions[index]) == (index, hashes[index])
    free = sorted(set(range(positions[-1] + 3)) - set(positions))
    assert all(tree.leaf_of(p) is None for p in [*free[:3], *rng.sample(free, 100), *free[-3:]])
