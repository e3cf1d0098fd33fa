"""The stored tree answers as the tree of its leaves does: roots and proofs from the stored
nodes, from the leaves where nodes are not built yet, and every position's leaf found."""

import random

from domain.audit.merkle import LeafList, consistency_path, inclusion_path, leaf_hash, root
from infrastructure.audit.leaf_writer import LeafWriter
from infrastructure.audit.tree_store import TreeStore
from infrastructure.database import Database


def _tree(database: Database, positions: list[int]) -> tuple[TreeStore, list[bytes]]:
    """A stored tree whose leaves hash these positions, in order."""
    tree = TreeStore(database)
    hashes = [leaf_hash(p.to_bytes(8, "big")) for p in positions]
    with database.transaction() as conn:
        for statement in LeafWriter(conn.dialect.name).ddl():
            conn.execute(statement)
        conn.executemany(
            "INSERT INTO audit_leaves (leaf_index, position, hash) VALUES (?, ?, ?)",
            [(i, p, h) for i, (p, h) in enumerate(zip(positions, hashes, strict=True))],
        )
    return tree, hashes


def test_roots_and_proofs_agree_with_the_leaves_before_and_after_the_nodes_are_built(
    database: Database,
) -> None:
    tree, hashes = _tree(database, list(range(1, 301)))
    reference = LeafList(hashes)
    sizes = [1, 15, 16, 17, 63, 64, 65, 200, 256, 300]
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
    tree, hashes = _tree(database, list(range(1, 101)))
    tree.build()
    tree.build()
    with database.transaction() as conn:
        conn.executemany(
            "INSERT INTO audit_leaves (leaf_index, position, hash) VALUES (?, ?, ?)",
            [(i, i + 1, leaf_hash(bytes([i]))) for i in range(100, 140)],
        )
    tree.build()
    reference = LeafList([*hashes, *(leaf_hash(bytes([i])) for i in range(100, 140))])
    assert root(tree, 140) == root(reference, 140)
    with database.transaction(write=False) as conn:
        counts = dict(conn.fetchall("SELECT level, COUNT(*) FROM audit_nodes GROUP BY level"))
    assert counts == {4: 8, 5: 4, 6: 2, 7: 1}


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
