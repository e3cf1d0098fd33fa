"""The audit API's use cases: the public key, signed heads, inclusion and consistency
proofs (RFC 9162), for callers with read permission on `audit`."""

import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from application.service.blocking import BlockingRunner
from application.service.errors import Forbidden, InvalidQuery, PlatformError
from domain.access.policies import Accountability
from domain.audit.entries import leaf_data
from domain.audit.heads import TreeHead
from domain.audit.merkle import consistency_proof, inclusion_proof, root
from infrastructure.audit.signing_key import SigningKey
from infrastructure.audit.tree_store import TreeStore

log = logging.getLogger(__name__)

#: The collection whose permission rows let a caller read the audit API.
AUDIT = "audit"

#: Heads one page of `/audit/heads` lists unless asked, and at most.
HEADS_PAGE, HEADS_MAX = 100, 1000

#: Finds the log position of an event the caller may read, by its event ID.
EventLocator = Callable[[str, Accountability], Awaitable[int | None]]


@dataclass(frozen=True)
class InclusionProof:
    """RFC 9162 §2.1.3's inclusion proof of one entry, with the head it is against."""

    position: int
    leaf_index: int
    tree_size: int
    leaf_hash: bytes
    #: What the leaf hashes (`domain.audit.entries.leaf_data`), None when the entry is
    #: gone from the log (the proof then shows what was there).
    leaf_data: bytes | None
    audit_path: list[bytes]
    root_hash: bytes
    #: The signed head of `tree_size`, when there is one.
    head: TreeHead | None


@dataclass(frozen=True)
class ConsistencyProof:
    """RFC 9162 §2.1.4's consistency proof between two sizes of the tree."""

    first: int
    second: int
    first_root: bytes
    second_root: bytes
    path: list[bytes]
    head: TreeHead | None


class TreeShorterThanHead(PlatformError):
    """The stored tree holds fewer leaves than a head signed over it: the log lost entries.
    Not the caller's fault, and not to be proven around."""


class AuditHeads:
    """Signs heads of the tree: on a timer when the log grew, and on demand."""

    def __init__(
        self,
        tree: TreeStore,
        key: SigningKey,
        blocking: BlockingRunner,
        clock: Callable[[], float],
    ) -> None:
        self.tree = tree
        self.key = key
        self._blocking = blocking
        self._clock = clock

    def sign(self) -> TreeHead | None:
        """A signed head of the tree as it is now, unless the newest head has its size
        already (that one, then); None while the log is empty. Blocks."""
        size = self.tree.size()
        latest = self.tree.heads(1)
        if latest and latest[0].tree_size >= size:
            return latest[0]
        if size == 0:
            return None
        self.tree.build()
        head = self.key.sign(size, root(self.tree, size), int(self._clock() * 1000))
        kept = self.tree.add_head(head)
        log.info("signed the audit tree's head at size %d", size)
        return kept

    async def sign_when_grown(self) -> None:
        """The timer's work: a new head when the log has grown since the last one."""
        await self._blocking.run(self.sign)


class AuditProofs:
    """What `/audit` answers."""

    def __init__(
        self,
        heads: AuditHeads,
        blocking: BlockingRunner,
        locate: EventLocator,
        find_dictionary: Callable[[bytes], int | None] = lambda key: None,
    ) -> None:
        """`find_dictionary` gives the log position of a dictionary by its ID (blocks)."""
        self._heads = heads
        self._tree = heads.tree
        self._blocking = blocking
        self._locate = locate
        self._find_dictionary = find_dictionary

    @staticmethod
    def check(caller: Accountability) -> None:
        """Forbidden unless the caller may read `audit` (admins may)."""
        if not caller.admin and caller.access(AUDIT, "read") is None:
            raise Forbidden()

    def public_key(self, caller: Accountability) -> SigningKey:
        """The key whose public half checks the heads."""
        self.check(caller)
        return self._heads.key

    async def heads(
        self, caller: Accountability, params: Mapping[str, Sequence[str]]
    ) -> list[TreeHead]:
        """Signed heads, newest first: `limit` (100 unless given, at most 1,000) from
        `offset`."""
        self.check(caller)
        limit = _whole(params, "limit")
        limit = HEADS_PAGE if limit is None else limit
        if limit > HEADS_MAX:
            raise InvalidQuery(f"limit may be at most {HEADS_MAX}")
        offset = _whole(params, "offset") or 0
        return await self._blocking.run(self._tree.heads, limit, offset)

    async def latest(self, caller: Accountability) -> TreeHead | None:
        """The newest signed head (one is signed now when there is none yet); None while
        the log is empty."""
        self.check(caller)
        heads = await self._blocking.run(self._tree.heads, 1)
        return heads[0] if heads else await self._blocking.run(self._heads.sign)

    async def sign_now(self, caller: Accountability) -> TreeHead | None:
        """A head of the tree as it is now, signed on demand (admins only); None while
        the log is empty."""
        if not caller.admin:
            raise Forbidden()
        return await self._blocking.run(self._heads.sign)

    async def inclusion(
        self, caller: Accountability, params: Mapping[str, Sequence[str]]
    ) -> InclusionProof:
        """The inclusion proof of an entry named by `eventID`, `position` or `dictionary`
        (the ID of a log dictionary, as check-proof names it), in the tree of `tree_size`
        (default: the newest signed head that holds it, signed now when none does)."""
        self.check(caller)
        event_id, position = _one(params, "eventID"), _one(params, "position")
        dictionary = _one(params, "dictionary")
        if sum(name is not None for name in (event_id, position, dictionary)) != 1:
            raise InvalidQuery("name the entry by one of eventID, position or dictionary")
        if event_id is not None:
            found = await self._locate(event_id, caller)
            if found is None:
                # As for items: an event that does not exist and one the caller may not
                # read are not told apart.
                raise Forbidden()
            position = str(found)
        elif not caller.admin:
            # Any entry of the log, with its stored bytes (users' changes among them; a
            # dictionary's strings frequent in the whole log): others prove the events
            # they may read, which they name by their IDs.
            raise Forbidden()
        elif dictionary is not None:
            position = str(await self._blocking.run(self._dictionary_position, dictionary))
        assert position is not None
        size = _whole(params, "tree_size")
        return await self._blocking.run(self._inclusion, _number("position", position), size)

    def _dictionary_position(self, named: str) -> int:
        if not _DICTIONARY_ID.fullmatch(named):
            raise InvalidQuery("dictionary is the 16 hexadecimal digits check-proof names")
        position = self._find_dictionary(bytes.fromhex(named))
        if position is None:
            raise InvalidQuery(f"the log has no dictionary {named}")
        return position

    def _inclusion(self, position: int, size: int | None) -> InclusionProof:
        leaf = self._tree.leaf_of(position)
        if leaf is None:
            raise InvalidQuery(f"the log has no entry at position {position}")
        index, leaf_hash = leaf
        head: TreeHead | None
        if size is None:
            head = self._covering_head(index)
            size = head.tree_size
        else:
            self._check_size(size)
            head = self._tree.head_at(size)
            if index >= size:
                raise InvalidQuery(f"position {position} is leaf {index}, not in a tree of {size}")
        self._tree.build()
        path, root_hash = inclusion_proof(self._tree, index, size)
        entry = self._tree.entry_at(position)
        data = None if entry is None else leaf_data(entry)
        return InclusionProof(position, index, size, leaf_hash, data, path, root_hash, head)

    def _covering_head(self, index: int) -> TreeHead:
        """The newest signed head, signed now when it does not hold leaf `index`."""
        heads = self._tree.heads(1)
        head = heads[0] if heads and heads[0].tree_size > index else self._heads.sign()
        if head is None or head.tree_size <= index:
            raise InvalidQuery("the log is empty: there is no tree head yet")
        current = self._tree.size()
        if head.tree_size > current:
            log.error(
                "the audit tree has %d leaves, fewer than its signed head of %d",
                current,
                head.tree_size,
            )
            raise TreeShorterThanHead(
                f"The audit tree has {current} leaves, fewer than its newest signed head of "
                f"{head.tree_size}: entries were removed from the log (tracepoint verify)."
            )
        return head

    def _check_size(self, size: int) -> None:
        current = self._tree.size()
        if size > current:
            raise InvalidQuery(f"the tree has {current} leaves, not {size}")

    async def consistency(
        self, caller: Accountability, params: Mapping[str, Sequence[str]]
    ) -> ConsistencyProof:
        """The proof that the tree of `second` leaves (default: the newest signed head's)
        extends the tree of `first`."""
        self.check(caller)
        first = _whole(params, "first")
        if first is None:
            raise InvalidQuery("first is required: the size of the tree you hold a head of")
        second = _whole(params, "second")
        return await self._blocking.run(self._consistency, first, second)

    def _consistency(self, first: int, second: int | None) -> ConsistencyProof:
        self._check_size(first)
        head: TreeHead | None
        if second is None:
            head = self._covering_head(max(first - 1, 0))
            second = head.tree_size
        else:
            self._check_size(second)
            head = self._tree.head_at(second)
        if first > second:
            raise InvalidQuery(f"first ({first}) is larger than second ({second})")
        self._tree.build()
        path, first_root, second_root = consistency_proof(self._tree, first, second)
        return ConsistencyProof(first, second, first_root, second_root, path, head)


#: A log dictionary's ID as check-proof prints it.
_DICTIONARY_ID = re.compile(r"[0-9a-f]{16}")


def _one(params: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = params.get(name)
    if not values:
        return None
    if len(values) != 1:
        raise InvalidQuery(f"{name} takes one value")
    return values[0]


def _whole(params: Mapping[str, Sequence[str]], name: str) -> int | None:
    value = _one(params, name)
    return None if value is None else _number(name, value)


def _number(name: str, value: str) -> int:
    if not value.isascii() or not value.isdigit() or len(value) > 18:
        raise InvalidQuery(f"{name} must be a whole number")
    return int(value)
