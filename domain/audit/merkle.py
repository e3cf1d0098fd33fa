"""RFC 9162 (Certificate Transparency 2.0) Merkle tree hashing, proofs and their checks.

The tree is read through `Subtrees`, which answers the hash of a perfect subtree (an
aligned run of 2^k leaves); everything else follows the RFC's recursive definitions
(§2.1.1 MTH, §2.1.3.1 PATH, §2.1.4.1 SUBPROOF) and its verification algorithms
(§2.1.3.2, §2.1.4.2), checked against the published test vectors.
"""

import hashlib
from collections.abc import Sequence
from typing import Protocol

#: MTH of the empty tree: SHA-256 of no bytes.
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof asked for sizes or an index the tree cannot answer."""


class Subtrees(Protocol):
    """The hashes of perfect subtrees of one tree."""

    def perfect(self, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
        """MTH of each `(start, size)`: `size` a power of two, `start` a multiple of it."""
        ...


def leaf_hash(data: bytes) -> bytes:
    """SHA-256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(size: int) -> int:
    """The largest power of two smaller than `size` (> 1): where MTH splits a tree."""
    return 1 << ((size - 1).bit_length() - 1)


def peaks(start: int, end: int) -> list[tuple[int, int]]:
    """The perfect subtrees MTH(D[start:end]) is made of, left to right."""
    found = []
    while end - start > 0:
        size = end - start
        top = size if size & (size - 1) == 0 else split(size)
        found.append((start, top))
        start += top
    return found


def fold(hashes: Sequence[bytes]) -> bytes:
    """MTH from its peaks' hashes, left to right: each joins what lies to its right."""
    if not hashes:
        return EMPTY_ROOT
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = node_hash(left, result)
    return result


def _ranges_path(index: int, start: int, end: int) -> list[tuple[int, int]]:
    """The ranges whose MTH make PATH(index, D[start:end]), leaf's sibling first."""
    path: list[tuple[int, int]] = []
    while end - start > 1:
        k = split(end - start)
        if index - start < k:
            path.append((start + k, end))
            end = start + k
        else:
            path.append((start, start + k))
            start += k
    path.reverse()
    return path


def _ranges_subproof(m: int, start: int, end: int) -> list[tuple[int, int]]:
    """The ranges whose MTH make SUBPROOF(m, D[start:end], true), in proof order."""
    proof: list[tuple[int, int]] = []
    complete = True
    while True:
        n = end - start
        if m == n:
            if not complete:
                proof.append((start, end))
            break
        k = split(n)
        if m <= k:
            proof.append((start + k, end))
            end = start + k
        else:
            proof.append((start, start + k))
            start += k
            m -= k
            complete = False
    proof.reverse()
    return proof


def _hashes_of(tree: Subtrees, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
    """MTH of each range, reading every perfect subtree they need in one call."""
    parts = [peaks(start, end) for start, end in ranges]
    flat = [p for part in parts for p in part]
    values = iter(tree.perfect(flat))
    return [fold([next(values) for _ in part]) for part in parts]


def root(tree: Subtrees, size: int) -> bytes:
    """MTH of the first `size` leaves."""
    return _hashes_of(tree, [(0, size)])[0]


def inclusion_path(tree: Subtrees, index: int, size: int) -> list[bytes]:
    """PATH(index, D[size]) (RFC 9162 §2.1.3.1)."""
    return _hashes_of(tree, _inclusion_ranges(index, size))


def inclusion_proof(tree: Subtrees, index: int, size: int) -> tuple[list[bytes], bytes]:
    """PATH(index, D[size]) and the root it leads to, read from the tree in one call."""
    *path, top = _hashes_of(tree, [*_inclusion_ranges(index, size), (0, size)])
    return path, top


def consistency_path(tree: Subtrees, first: int, second: int) -> list[bytes]:
    """PROOF(first, D[second]) (RFC 9162 §2.1.4.1); empty when first is 0 or second."""
    return _hashes_of(tree, _consistency_ranges(first, second))


def consistency_proof(tree: Subtrees, first: int, second: int) -> tuple[list[bytes], bytes, bytes]:
    """PROOF(first, D[second]) and the roots of both sizes, read from the tree in one call."""
    ranges = [*_consistency_ranges(first, second), (0, first), (0, second)]
    *path, old, new = _hashes_of(tree, ranges)
    return path, old, new


def _inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
    return _ranges_path(index, 0, size)


def _consistency_ranges(first: int, second: int) -> list[tuple[int, int]]:
    if not 0 <= first <= second:
        raise ProofError(f"no consistency proof from {first} leaves to {second}")
    return [] if first in (0, second) else _ranges_subproof(first, 0, second)


def verify_inclusion(
    leaf: bytes, index: int, size: int, path: Sequence[bytes], root_hash: bytes
) -> bool:
    """Whether `path` proves `leaf` at `index` in the tree of `size` with `root_hash`
    (RFC 9162 §2.1.3.2)."""
    if not 0 <= index < size or any(len(p) != 32 for p in path):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root_hash


def verify_consistency(
    first: int, second: int, first_hash: bytes, second_hash: bytes, path: Sequence[bytes]
) -> bool:
    """Whether `path` proves the tree of `second` leaves extends that of `first`
    (RFC 9162 §2.1.4.2, with its two trivial cases: from nothing, and to itself)."""
    if not 0 <= first <= second or any(len(p) != 32 for p in path):
        return False
    if first == 0:
        return not path and first_hash == EMPTY_ROOT
    if first == second:
        return not path and first_hash == second_hash
    if not path:
        return False
    nodes = list(path)
    if first & (first - 1) == 0:
        nodes.insert(0, first_hash)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = nodes[0]
    for c in nodes[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == first_hash and sr == second_hash and sn == 0


class LeafList:
    """A tree held as its leaf hashes in memory (checks, tests, the offline verifier)."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self._leaves = leaves

    def perfect(self, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
        """MTH of each perfect range, from the leaves."""
        return [_perfect_of(self._leaves[start : start + size]) for start, size in ranges]


def _perfect_of(leaves: Sequence[bytes]) -> bytes:
    level = list(leaves)
    while len(level) > 1:
        level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def perfect_of(leaves: Sequence[bytes]) -> bytes:
    """MTH of a power-of-two number of leaf hashes."""
    if not leaves or len(leaves) & (len(leaves) - 1):
        raise ValueError(f"{len(leaves)} leaves do not make a perfect subtree")
    return _perfect_of(leaves)


class CompactRange:
    """A tree's right edge while its leaves stream in: its root at any size so far in
    O(log n) memory (the perfect subtrees of the size's binary form)."""

    def __init__(self) -> None:
        self.size = 0
        self._stack: list[tuple[int, bytes]] = []

    def append(self, leaf: bytes) -> None:
        """Add the next leaf hash."""
        size, value = 1, leaf
        while self._stack and self._stack[-1][0] == size:
            _, left = self._stack.pop()
            size, value = size * 2, node_hash(left, value)
        self._stack.append((size, value))
        self.size += 1

    def root(self) -> bytes:
        """MTH of the leaves appended so far."""
        return fold([value for _, value in self._stack])
