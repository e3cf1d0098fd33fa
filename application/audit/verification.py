"""`tracepoint verify`: every leaf recomputed from the entry it hashes, every signed head
from the recomputed tree, and a head an auditor saved checked against today's log."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from domain.audit.entries import StoredEntry, entry_leaf
from domain.audit.heads import TreeHead
from domain.audit.merkle import CompactRange, consistency_path, verify_consistency
from infrastructure.audit.signing_key import PublicKey
from infrastructure.audit.tree_store import TreeStore, log_entries
from infrastructure.database import Database
from infrastructure.event_store import EventStore

#: Entries and leaves read at once.
_BATCH = 5000


@dataclass(frozen=True)
class Finding:
    """One thing that does not match, and the log position it concerns (when one)."""

    message: str
    position: int | None = None


@dataclass
class VerificationReport:
    """What `verify` found: the entries and heads it checked, and every mismatch."""

    entries: int = 0
    heads: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing failed."""
        return not self.findings

    @property
    def first_position(self) -> int | None:
        """The smallest log position a finding names."""
        positions = [f.position for f in self.findings if f.position is not None]
        return min(positions) if positions else None


class LogVerification:
    """Checks the stored log against its tree and heads, reading the database only."""

    def __init__(
        self, store: EventStore, database: Database, tree: TreeStore, public: PublicKey
    ) -> None:
        self._store = store
        self._db = database
        self._tree = tree
        self._public = public

    def log_end(self) -> int:
        """The newest log position: what `verify` checks up to."""
        return self._store.max_position()

    def verify(
        self,
        progress: Callable[[int], None] | None = None,
        saved: TreeHead | None = None,
    ) -> VerificationReport:
        """Check the log up to its end now; with `saved`, also that head. Blocks."""
        end = self.log_end()
        report = VerificationReport()
        heads = list(self._tree.all_heads())
        report.heads = len(heads)
        sizes = {h.tree_size for h in heads} | ({saved.tree_size} if saved else set())
        roots, edge = self._walk(end, sizes, report, progress)
        for head in heads:
            self._check_head(head, roots, edge.size, report)
        if saved is not None:
            self._check_saved(saved, roots, edge, report)
        return report

    def _walk(
        self,
        end: int,
        sizes: set[int],
        report: VerificationReport,
        progress: Callable[[int], None] | None,
    ) -> tuple[dict[int, bytes], CompactRange]:
        """Recompute every leaf from the log, compare it with the stored one, and note
        the recomputed tree's root at each size in `sizes`."""
        edge = CompactRange()
        roots: dict[int, bytes] = {}
        if 0 in sizes:
            roots[0] = edge.root()
        leaves = self._stored_leaves()
        aligned = True
        done = 0
        for entry in self._entries(end):
            leaf = entry_leaf(entry)
            edge.append(leaf)
            if edge.size in sizes:
                roots[edge.size] = edge.root()
            if aligned:
                aligned = _compare(entry, leaf, next(leaves, None), edge.size - 1, report)
            if progress is not None:
                progress(entry.position - done)
                done = entry.position
        report.entries = edge.size
        leftover = next(leaves, None) if aligned else None
        # A leaf past the end read at the start may be of an entry appended since: only
        # one whose entry the log does not hold now tells of a removal.
        if leftover is not None and not self._holds(leftover[1]):
            index, position, _ = leftover
            report.findings.append(
                Finding(
                    f"leaf {index} names position {position}, which the log no longer "
                    "holds: entries were removed from its end",
                    position,
                )
            )
        return roots, edge

    def _holds(self, position: int) -> bool:
        return self._tree.entry_at(position) is not None

    def _entries(self, end: int) -> Iterator[StoredEntry]:
        after = 0
        while True:
            with self._db.transaction(write=False) as conn:
                batch = log_entries(conn, after, _BATCH)
            for entry in batch:
                if entry.position > end:
                    return
                yield entry
            if len(batch) < _BATCH:
                return
            after = batch[-1].position

    def _stored_leaves(self) -> Iterator[tuple[int, int, bytes]]:
        start = 0
        while True:
            batch = self._tree.leaves(start, start + _BATCH)
            yield from batch
            if len(batch) < _BATCH:
                return
            start += _BATCH

    def _check_head(
        self, head: TreeHead, roots: dict[int, bytes], size: int, report: VerificationReport
    ) -> None:
        where = f"the signed head of tree size {head.tree_size}"
        if not self._public.signed(head):
            report.findings.append(
                Finding(f"{where} is not signed by this service's key (key {head.key_id})")
            )
        elif head.tree_size > size:
            report.findings.append(
                Finding(
                    f"{where} counts more entries than the log holds ({size}): entries "
                    "were removed from its end"
                )
            )
        elif roots.get(head.tree_size) != head.root_hash:
            report.findings.append(
                Finding(
                    f"{where} does not match the log: one of its first {head.tree_size} "
                    "entries was changed, removed or moved"
                )
            )

    def _check_saved(
        self,
        saved: TreeHead,
        roots: dict[int, bytes],
        edge: CompactRange,
        report: VerificationReport,
    ) -> None:
        where = f"the saved head of tree size {saved.tree_size}"
        if not self._public.signed(saved):
            report.findings.append(
                Finding(f"{where} is not signed by this service's key (key {saved.key_id})")
            )
            return
        if saved.tree_size > edge.size:
            report.findings.append(
                Finding(
                    f"the log holds {edge.size} entries, fewer than {where}: entries were "
                    "removed from its end"
                )
            )
            return
        current = edge.root()
        consistent = False
        if self._tree.size() >= edge.size:
            self._tree.build()
            proof = consistency_path(self._tree, saved.tree_size, edge.size)
            consistent = verify_consistency(
                saved.tree_size, edge.size, saved.root_hash, current, proof
            )
        if not consistent or roots.get(saved.tree_size) != saved.root_hash:
            report.findings.append(
                Finding(
                    f"today's log is not consistent with {where}: one of its first "
                    f"{saved.tree_size} entries was changed, removed or moved"
                )
            )


def _compare(
    entry: StoredEntry,
    leaf: bytes,
    stored: tuple[int, int, bytes] | None,
    index: int,
    report: VerificationReport,
) -> bool:
    """Compare an entry's recomputed leaf with the stored leaf of its index; False once
    the two no longer pair up (the rest would all differ)."""
    if stored is None:
        report.findings.append(
            Finding(f"the entry at position {entry.position} has no leaf", entry.position)
        )
        return False
    _, position, stored_hash = stored
    if position < entry.position:
        report.findings.append(
            Finding(
                f"the entry at position {position} (leaf {index}) is missing from the log",
                position,
            )
        )
        return False
    if position > entry.position:
        report.findings.append(
            Finding(
                f"the entry at position {entry.position} is not in the tree (leaf {index} "
                f"names position {position})",
                entry.position,
            )
        )
        return False
    if stored_hash != leaf:
        report.findings.append(
            Finding(
                f"the entry at position {entry.position} does not match its leaf "
                f"{index}: it was changed after it was written",
                entry.position,
            )
        )
    return True
