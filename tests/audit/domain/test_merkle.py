"""The tree's hashing and proofs against RFC 6962/9162's published test vectors, and every
proof of every small tree against the RFC's own verification algorithms."""

import pytest

from domain.audit.merkle import (
    EMPTY_ROOT,
    CompactRange,
    LeafList,
    ProofError,
    consistency_path,
    consistency_proof,
    inclusion_path,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

# The Certificate Transparency reference leaves and the root of each size 1..8
# (certificate-transparency merkle_tree_test, transparency-dev/merkle testonly).
VECTOR_LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]
VECTOR_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
VECTOR_INCLUSION = [
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
]
VECTOR_CONSISTENCY = [
    (
        2,
        8,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]

TREE = LeafList([leaf_hash(d) for d in VECTOR_LEAVES])
MANY = [leaf_hash(i.to_bytes(2, "big")) for i in range(40)]


def test_the_empty_tree_s_root_is_the_hash_of_nothing() -> None:
    assert root(TREE, 0) == EMPTY_ROOT
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_match_the_published_vectors(size: int) -> None:
    assert root(TREE, size).hex() == VECTOR_ROOTS[size - 1]


@pytest.mark.parametrize(("index", "size", "expected"), VECTOR_INCLUSION)
def test_inclusion_paths_match_the_published_vectors(
    index: int, size: int, expected: list[str]
) -> None:
    path = inclusion_path(TREE, index, size)
    assert [p.hex() for p in path] == expected
    leaf = leaf_hash(VECTOR_LEAVES[index])
    assert verify_inclusion(leaf, index, size, path, bytes.fromhex(VECTOR_ROOTS[size - 1]))


@pytest.mark.parametrize(("first", "second", "expected"), VECTOR_CONSISTENCY)
def test_consistency_paths_match_the_published_vectors(
    first: int, second: int, expected: list[str]
) -> None:
    path = consistency_path(TREE, first, second)
    assert [p.hex() for p in path] == expected
    old, new = (bytes.fromhex(VECTOR_ROOTS[s - 1]) for s in (first, second))
    assert verify_consistency(first, second, old, new, path)


def test_every_inclusion_proof_of_every_small_tree_verifies_and_no_other_leaf_does() -> None:
    tree = LeafList(MANY)
    for size in range(1, len(MANY) + 1):
        top = root(tree, size)
        for index in range(size):
            path = inclusion_path(tree, index, size)
            assert verify_inclusion(MANY[index], index, size, path, top)
            other = MANY[(index + 1) % size]
            assert size == 1 or not verify_inclusion(other, index, size, path, top)
            wrong = index ^ 1
            assert wrong >= size or not verify_inclusion(MANY[index], wrong, size, path, top)


def test_every_consistency_proof_of_every_small_pair_verifies_and_a_changed_tree_fails() -> None:
    tree = LeafList(MANY)
    roots = [root(tree, n) for n in range(len(MANY) + 1)]
    for second in range(len(MANY) + 1):
        for first in range(second + 1):
            path = consistency_path(tree, first, second)
            assert verify_consistency(first, second, roots[first], roots[second], path)
            if 0 < first < second:
                changed = LeafList([*MANY[: first - 1], leaf_hash(b"forged"), *MANY[first:]])
                forged_old = root(changed, first)
                assert not verify_consistency(first, second, forged_old, roots[second], path)


def test_a_proof_with_a_flipped_bit_or_a_missing_or_extra_hash_fails() -> None:
    tree = LeafList(MANY)
    top = root(tree, 37)
    path = inclusion_path(tree, 21, 37)
    flipped = [path[0], bytes([path[1][0] ^ 1]) + path[1][1:], *path[2:]]
    assert not verify_inclusion(MANY[21], 21, 37, flipped, top)
    assert not verify_inclusion(MANY[21], 21, 37, path[:-1], top)
    assert not verify_inclusion(MANY[21], 21, 37, [*path, path[0]], top)
    proof = consistency_path(tree, 13, 37)
    old = root(tree, 13)
    assert not verify_consistency(13, 37, old, top, proof[:-1])
    assert not verify_consistency(13, 37, old, top, [*proof, proof[0]])


def test_proofs_outside_the_tree_are_refused() -> None:
    with pytest.raises(ProofError):
        inclusion_path(TREE, 8, 8)
    with pytest.raises(ProofError):
        consistency_path(TREE, 5, 3)


def test_a_compact_range_gives_the_root_of_every_size_as_leaves_stream_in() -> None:
    edge = CompactRange()
    tree = LeafList(MANY)
    for size, leaf in enumerate(MANY, start=1):
        edge.append(leaf)
        assert edge.root() == root(tree, size)


def test_a_node_is_the_hash_of_its_children_in_order() -> None:
    left, right = MANY[0], MANY[1]
    assert node_hash(left, right) != node_hash(right, left)
    assert root(LeafList([left, right]), 2) == node_hash(left, right)


def test_a_proof_read_with_its_roots_is_the_proof_and_the_roots_read_apart() -> None:
    tree = LeafList(MANY)
    for size in (1, 2, 7, 16, 37):
        for index in (0, size // 2, size - 1):
            assert inclusion_proof(tree, index, size) == (
                inclusion_path(tree, index, size),
                root(tree, size),
            )
        for first in (0, 1, size // 2, size):
            assert consistency_proof(tree, first, size) == (
                consistency_path(tree, first, size),
                root(tree, first),
                root(tree, size),
            )
