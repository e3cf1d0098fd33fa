"""What capture computes of each event for the query tables, handed to the projections
with the stored event so that they need not compute it again."""

from dataclasses import dataclass

from domain.epcis.index_terms import EventTerms
from domain.epcis.lineage_terms import LineageTerms


@dataclass(frozen=True, slots=True)
class DerivedTerms:
    """An event's index terms and its lineage rows (None: it makes none)."""

    index: EventTerms
    lineage: LineageTerms | None

    def __reduce__(self) -> tuple[type["DerivedTerms"], tuple[EventTerms, LineageTerms | None]]:
        # A frozen dataclass with slots unpickles through Python-level setattr calls.
        return (DerivedTerms, (self.index, self.lineage))
