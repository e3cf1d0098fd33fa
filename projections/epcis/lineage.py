"""The lineage tables: what was packed into, associated with or transformed into what, and
which lot an item is of; one row per relation an event makes or ends."""

from collections.abc import Sequence
from typing import Any

from domain.epcis.captured_event import CapturedEvent
from domain.epcis.derived_terms import DerivedTerms
from domain.epcis.index_terms import event_terms
from domain.epcis.lineage_terms import (
    ASSOCIATED_WITH,
    CONTAINED_IN,
    LINEAGE_TYPES,
    MEMBER_OF,
    TRANSFORMED_INTO,
    event_lineage,
)
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.epcis.events import MAX_INDEXED_LENGTH
from projections.epcis.stored_ids import stored_id
from projections.projection import Projection

SCHEMA = (
    # member_of (instance → lot). contained_in and associated_with (child → parent) are
    # the `child` and `parent` rows of their event in epcis_event_epcs and
    # epcis_event_quantities: kept there once, not again here.
    """CREATE TABLE IF NOT EXISTS epcis_lineage_links (
        position {bigint} NOT NULL,
        relation SMALLINT NOT NULL,
        source {key_text} NOT NULL,
        target {key_text} NOT NULL,
        source_prefix SMALLINT,
        target_prefix SMALLINT,
        event_time {bigint} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_lineage_links_source"
    " ON epcis_lineage_links (source, relation, event_time)",
    "CREATE INDEX IF NOT EXISTS epcis_lineage_links_target"
    " ON epcis_lineage_links (target, relation, event_time)",
    # A DELETE of a parent's children (child NULL: all of them).
    """CREATE TABLE IF NOT EXISTS epcis_lineage_ends (
        position {bigint} NOT NULL,
        relation SMALLINT NOT NULL,
        parent {key_text} NOT NULL,
        child {key_text},
        event_time {bigint} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_lineage_ends_parent"
    " ON epcis_lineage_ends (parent, relation, event_time)",
    # Inputs and outputs of transformations, joined by `transformation`: the
    # transformationID, or the event itself when it has none.
    """CREATE TABLE IF NOT EXISTS epcis_lineage_transformed (
        position {bigint} NOT NULL,
        transformation {key_text} NOT NULL,
        side TEXT NOT NULL,
        item {key_text} NOT NULL,
        item_prefix SMALLINT,
        event_time {bigint} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_lineage_transformed_item"
    " ON epcis_lineage_transformed (item, side, event_time)",
    "CREATE INDEX IF NOT EXISTS epcis_lineage_transformed_transformation"
    " ON epcis_lineage_transformed (transformation, side)",
)

TABLES = ("epcis_lineage_links", "epcis_lineage_ends", "epcis_lineage_transformed")

#: Relations as the lineage tables hold them: a number each, where the name took 10 to 16
#: bytes in every row and its indexes.
RELATION_CODES = {CONTAINED_IN: 1, ASSOCIATED_WITH: 2, MEMBER_OF: 3, TRANSFORMED_INTO: 4}
RELATIONS = {code: relation for relation, code in RELATION_CODES.items()}


def _fits(*values: str | None) -> bool:
    return all(value is None or len(value) <= MAX_INDEXED_LENGTH for value in values)


class LineageProjection(Projection):
    """Writes the lineage rows of each captured EPCIS event (error declarations make none:
    they say nothing new of what went where)."""

    name = "epcis_lineage"
    follows = (CapturedEvent.Captured, CapturedEvent.AlsoCaptured)
    schema = SCHEMA
    # 1: identifiers are held without the GS1 resolver (stored_ids.py).
    # 2: the length of an identifier's company prefix instead of its URN.
    # 3: relations as numbers.
    # 4: no rows for what an aggregation or association puts into its parent: the trace
    #    reads them from the event's EPC and class rows (lineage_reader.py).
    revision = 4
    tables = TABLES

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Insert the link, end and transformation rows of a batch of events."""
        links: list[tuple[Any, ...]] = []
        ends: list[tuple[Any, ...]] = []
        transformed: list[tuple[Any, ...]] = []
        for logged in events:
            captured: Any = logged.event
            event = captured.epcis_event
            derived = logged.derived
            if isinstance(derived, DerivedTerms):
                terms, found = derived.index, derived.lineage
            elif "errorDeclaration" in event or event.get("type") not in LINEAGE_TYPES:
                continue
            else:
                terms = event_terms(event, captured.namespaces)
                found = event_lineage(event, terms)
            if found is None:
                continue
            position, time = logged.position, terms.event_time
            links.extend(
                (
                    position,
                    RELATION_CODES[k.relation],
                    stored_id(k.source),
                    stored_id(k.target),
                    k.source_prefix,
                    k.target_prefix,
                    time,
                )
                for k in found.links
                if _fits(k.source, k.target)
            )
            ends.extend(
                (
                    position,
                    RELATION_CODES[e.relation],
                    stored_id(e.parent),
                    None if e.child is None else stored_id(e.child),
                    time,
                )
                for e in found.ends
                if _fits(e.parent, e.child)
            )
            transformation = (
                f"id:{terms.transformation_id}" if terms.transformation_id else f"event:{position}"
            )
            transformed.extend(
                (position, transformation, t.side, stored_id(t.item), t.prefix, time)
                for t in found.transformed
                if _fits(t.item, transformation)
            )
        conn.insert_many(
            "epcis_lineage_links",
            (
                "position",
                "relation",
                "source",
                "target",
                "source_prefix",
                "target_prefix",
                "event_time",
            ),
            links,
        )
        conn.insert_many(
            "epcis_lineage_ends", ("position", "relation", "parent", "child", "event_time"), ends
        )
        conn.insert_many(
            "epcis_lineage_transformed",
            ("position", "transformation", "side", "item", "item_prefix", "event_time"),
            transformed,
        )
