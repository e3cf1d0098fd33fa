"""The EPCIS query tables: one row per event plus index tables for what queries match on."""

from collections.abc import Mapping, Sequence
from typing import Any

from domain.epcis.captured_event import CapturedEvent
from domain.epcis.derived_terms import DerivedTerms
from domain.epcis.index_terms import EventTerms, event_terms
from domain.epcis.timestamps import timestamp_micros
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.epcis.epc_roles import ROLE_NUMBERS
from projections.epcis.event_keys import event_keys, stored_event_id
from projections.epcis.prefixes import FOLLOWS as PREFIX_FOLLOWS
from projections.epcis.prefixes import SCHEMA as PREFIX_SCHEMA
from projections.epcis.prefixes import TABLES as PREFIX_TABLES
from projections.epcis.prefixes import capture_accounts, record_capture_accounts, record_prefixes
from projections.epcis.sensors import SCHEMA as SENSOR_SCHEMA
from projections.epcis.sensors import TABLES as SENSOR_TABLES
from projections.epcis.sensors import insert_sensor_rows
from projections.epcis.stored_ids import stored_id
from projections.epcis.terms import (
    ACCOUNT,
    ACTION,
    BIZ_LOCATION,
    BIZ_STEP,
    DISPOSITION,
    EVENT_TYPE,
    FIELD,
    FIELD_NUMBERS,
    FIELD_TEXTS,
    READ_POINT,
    Term,
    TermCache,
    field_term,
)
from projections.epcis.terms import SCHEMA as TERMS_SCHEMA
from projections.epcis.terms import TABLES as TERMS_TABLES
from projections.projection import Projection, Statement

SCHEMA: tuple[Statement, ...] = (
    # Vocabulary values as their numbers in `epcis_terms` (projections/epcis/terms.py);
    # fixed-width columns first, so that none is padded.
    """CREATE TABLE IF NOT EXISTS epcis_events (
        position {bigint} PRIMARY KEY,
        event_key {bigint} NOT NULL,
        event_check {bigint} NOT NULL,
        event_time {bigint} NOT NULL,
        record_time {bigint} NOT NULL,
        declaration_time {bigint},
        event_type_term INTEGER NOT NULL,
        action_term INTEGER,
        biz_step_term INTEGER,
        disposition_term INTEGER,
        read_point_term INTEGER,
        biz_location_term INTEGER,
        account_term INTEGER,
        transformation_id {key_text},
        error_reason {key_text})""",
    # The event ID is found by its key (projections/epcis/event_keys.py). Not unique: an
    # event ID names the event and its error declarations, and events of different
    # accounts (multi-tenant) may share one. Matches are few and never walked in order,
    # so no position in the key: random keys fill pages to ~70 %, and 8 bytes less an
    # entry is ~12 bytes an event.
    "CREATE INDEX IF NOT EXISTS epcis_events_event_key ON epcis_events (event_key)",
    "CREATE INDEX IF NOT EXISTS epcis_events_event_time ON epcis_events (event_time, position)",
    "CREATE INDEX IF NOT EXISTS epcis_events_record_time ON epcis_events (record_time, position)",
    "CREATE INDEX IF NOT EXISTS epcis_events_type ON epcis_events (event_type_term, position)",
    # A step, disposition, read point or place is optional, and queries only ever ask
    # for values: events without one have no entry (partial indexes; `x IN (…)` implies
    # `x IS NOT NULL` to both planners).
    "CREATE INDEX IF NOT EXISTS epcis_events_biz_step"
    " ON epcis_events (biz_step_term, position) WHERE biz_step_term IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_events_disposition"
    " ON epcis_events (disposition_term, position) WHERE disposition_term IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_events_read_point"
    " ON epcis_events (read_point_term, position) WHERE read_point_term IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_events_biz_location"
    " ON epcis_events (biz_location_term, position) WHERE biz_location_term IS NOT NULL",
    # A place or a step within a time window, the commonest pairs: the window alone reads
    # every event of the hour, the place alone every event there (tens of thousands at a
    # million). The position last also serves orderBy=eventTime from the index.
    "CREATE INDEX IF NOT EXISTS epcis_events_biz_location_time"
    " ON epcis_events (biz_location_term, event_time, position)"
    " WHERE biz_location_term IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_events_read_point_time"
    " ON epcis_events (read_point_term, event_time, position) WHERE read_point_term IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_events_biz_step_time"
    " ON epcis_events (biz_step_term, event_time, position) WHERE biz_step_term IS NOT NULL",
    # Most events have no transformation ID; a partial index costs them nothing.
    "CREATE INDEX IF NOT EXISTS epcis_events_transformation"
    " ON epcis_events (transformation_id, position) WHERE transformation_id IS NOT NULL",
    # Error declarations are few among many events: partial indexes cost the rest nothing.
    "CREATE INDEX IF NOT EXISTS epcis_events_declaration_time"
    " ON epcis_events (declaration_time, position) WHERE declaration_time IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_events_error_reason"
    " ON epcis_events (error_reason, position) WHERE error_reason IS NOT NULL",
    """CREATE TABLE IF NOT EXISTS epcis_event_persistent_dispositions (
        position {bigint} NOT NULL,
        kind TEXT NOT NULL,
        disposition {key_text} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_event_persistent_dispositions_value"
    " ON epcis_event_persistent_dispositions (disposition, kind, position)",
    """CREATE TABLE IF NOT EXISTS epcis_event_corrections (
        position {bigint} NOT NULL,
        event_id {key_text} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_event_corrections_event_id"
    " ON epcis_event_corrections (event_id, position)",
    # `role`: the number of the EPC's role (epc_roles.py), as in epcis_event_quantities;
    # `prefix`: the length of its company prefix where the event's spelling told it, for
    # the trace, which reads a parent's children from these rows.
    # SQLite keeps the rows in position order, as the table's key (an event's EPCs are
    # read by position): no rowids and no index of positions beside them, ~50 bytes an
    # event less. PostgreSQL keeps a table apart from any index, so it has the index.
    {
        "sqlite": "CREATE TABLE IF NOT EXISTS epcis_event_epcs (position INTEGER NOT NULL,"
        " role INTEGER NOT NULL, epc TEXT NOT NULL, prefix INTEGER,"
        " PRIMARY KEY (position, role, epc)) WITHOUT ROWID",
        "postgresql": "CREATE TABLE IF NOT EXISTS epcis_event_epcs (position BIGINT NOT NULL,"
        ' role SMALLINT NOT NULL, prefix SMALLINT, epc TEXT COLLATE "C" NOT NULL)',
    },
    "CREATE INDEX IF NOT EXISTS epcis_event_epcs_epc ON epcis_event_epcs (epc, role, position)",
    {
        "sqlite": "",
        "postgresql": "CREATE INDEX IF NOT EXISTS epcis_event_epcs_position"
        " ON epcis_event_epcs (position)",
    },
    """CREATE TABLE IF NOT EXISTS epcis_event_quantities (
        position {bigint} NOT NULL,
        role SMALLINT NOT NULL,
        epc_class {key_text} NOT NULL,
        quantity {real},
        uom TEXT,
        dimension TEXT,
        si_quantity {real},
        prefix SMALLINT)""",
    # `*_quantity_<uom>` compares in SI within a dimension.
    "CREATE INDEX IF NOT EXISTS epcis_event_quantities_si"
    " ON epcis_event_quantities (dimension, si_quantity, position) WHERE dimension IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_event_quantities_class"
    " ON epcis_event_quantities (epc_class, role, position)",
    "CREATE INDEX IF NOT EXISTS epcis_event_quantities_quantity"
    " ON epcis_event_quantities (quantity, position)",
    "CREATE INDEX IF NOT EXISTS epcis_event_quantities_position"
    " ON epcis_event_quantities (position)",
    """CREATE TABLE IF NOT EXISTS epcis_event_biz_transactions (
        position {bigint} NOT NULL,
        type {key_text},
        value {key_text} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_event_biz_transactions_value"
    " ON epcis_event_biz_transactions (value, position)",
    """CREATE TABLE IF NOT EXISTS epcis_event_parties (
        position {bigint} NOT NULL,
        direction TEXT NOT NULL,
        type {key_text},
        value {key_text} NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS epcis_event_parties_value"
    " ON epcis_event_parties (value, direction, position)",
    # `field`: the number of the field's scope and name in epcis_terms (terms.FIELD).
    """CREATE TABLE IF NOT EXISTS epcis_event_fields (
        position {bigint} NOT NULL,
        field INTEGER NOT NULL,
        text_value {key_text},
        number_value {real},
        time_value {bigint})""",
    "CREATE INDEX IF NOT EXISTS epcis_event_fields_name"
    " ON epcis_event_fields (field, text_value, position)",
    # GT_/LT_ compare numbers and instants: most values are neither, so partial indexes.
    "CREATE INDEX IF NOT EXISTS epcis_event_fields_number"
    " ON epcis_event_fields (field, number_value, position) WHERE number_value IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS epcis_event_fields_time"
    " ON epcis_event_fields (field, time_value, position) WHERE time_value IS NOT NULL",
    # orderBy=<field> asks whether an event has a smaller value, or any, by its position.
    "CREATE INDEX IF NOT EXISTS epcis_event_fields_position ON epcis_event_fields (position)",
    *TERMS_SCHEMA,
    *PREFIX_SCHEMA,
    *SENSOR_SCHEMA,
)

EVENT_COLUMNS = (
    "position",
    "event_key",
    "event_check",
    "event_time",
    "record_time",
    "declaration_time",
    "event_type_term",
    "action_term",
    "biz_step_term",
    "disposition_term",
    "read_point_term",
    "biz_location_term",
    "account_term",
    "transformation_id",
    "error_reason",
)

TABLES = (
    *PREFIX_TABLES,
    *SENSOR_TABLES,
    "epcis_event_corrections",
    "epcis_event_persistent_dispositions",
    "epcis_event_fields",
    "epcis_event_parties",
    "epcis_event_biz_transactions",
    "epcis_event_quantities",
    "epcis_event_epcs",
    "epcis_events",
    *TERMS_TABLES,
)


#: Longest text the index tables hold. PostgreSQL refuses B-tree entries over 2,704
#: bytes; longer values stay in the stored event but cannot be matched on.
MAX_INDEXED_LENGTH = 600


def _indexable(value: str | None) -> str | None:
    return value if value is None or len(value) <= MAX_INDEXED_LENGTH else None


def _fits(value: str | None, other: str | None = None) -> bool:
    # Called for every index row: plain comparisons, no generator.
    length = 0 if value is None else len(value)
    if other is not None:
        length += len(other)
    return length <= MAX_INDEXED_LENGTH


#: The kinds of the terms of an `epcis_events` row, in its column order.
_KINDS = (EVENT_TYPE, ACTION, BIZ_STEP, DISPOSITION, READ_POINT, BIZ_LOCATION, ACCOUNT)
#: Where those values begin in the row.
_FIRST_TERM = EVENT_COLUMNS.index("event_type_term")


def _numbered(rows: list[tuple[Any, ...]], numbers: Mapping[Term, int]) -> list[tuple[Any, ...]]:
    """The rows with their vocabulary values replaced by the values' term numbers."""
    first, last = _FIRST_TERM, _FIRST_TERM + len(_KINDS)
    return [
        (
            *row[:first],
            *(
                None if value is None else numbers[kind, value]
                for kind, value in zip(_KINDS, row[first:last], strict=True)
            ),
            *row[last:],
        )
        for row in rows
    ]


class EpcisEventsProjection(Projection):
    """Writes each captured EPCIS event record (the event, or an error declaration of it)
    and its index terms into the query tables."""

    name = "epcis_events"
    follows = (CapturedEvent.Captured, CapturedEvent.AlsoCaptured, *PREFIX_FOLLOWS)
    schema = SCHEMA
    # 1: standard CBV values written as `cbv:` CURIEs are indexed as their Web URIs.
    # 2: EPCs and classes are held without the GS1 resolver (stored_ids.py).
    # 3: event IDs named by their hash are held in a shorter form (event_keys.py).
    # 4: fields by the number of their scope and name (terms.FIELD).
    # 5: EPC rows once each (the SQLite table is keyed by them).
    # 6: which fields hold texts and which numbers (terms.FIELD_TEXTS, FIELD_NUMBERS).
    # 7: roles of EPCs and classes as numbers (epc_roles.py); an event's capturing
    #    account as a term (terms.ACCOUNT), where its capture's ID took ~37 bytes a row.
    # 8: the company prefix length of EPCs and classes, for the trace (lineage_reader.py).
    # 9: an event's ID by a 128-bit key, its text read from the log (event_keys.py).
    revision = 9
    tables = TABLES

    def __init__(self) -> None:
        self._terms = TermCache()

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Insert one `epcis_events` row and its index rows per captured event."""
        jobs = [e for e in events if isinstance(e.event, PREFIX_FOLLOWS)]
        accounts = record_capture_accounts(conn, jobs) if jobs else {}
        if jobs:
            events = [e for e in events if not isinstance(e.event, PREFIX_FOLLOWS)]
        accounts = capture_accounts(conn, events, accounts)
        events_rows: list[tuple[Any, ...]] = []
        epcs: list[tuple[Any, ...]] = []
        quantities: list[tuple[Any, ...]] = []
        transactions: list[tuple[Any, ...]] = []
        parties: list[tuple[Any, ...]] = []
        fields: list[tuple[Any, ...]] = []
        corrections: list[tuple[Any, ...]] = []
        sensors: list[tuple[int, EventTerms]] = []
        identified: list[tuple[int, EventTerms]] = []
        persistent: list[tuple[Any, ...]] = []
        wanted: set[tuple[int, str]] = set()
        for logged in events:
            captured: Any = logged.event
            position = logged.position
            namespaces: dict[str, str] = captured.namespaces
            derived = logged.derived
            if isinstance(derived, DerivedTerms):
                terms = derived.index
            else:
                terms = event_terms(captured.epcis_event, namespaces)
            vocabulary = (
                terms.event_type,
                terms.action,
                _indexable(terms.biz_step),
                _indexable(terms.disposition),
                _indexable(terms.read_point),
                _indexable(terms.biz_location),
                accounts.get(captured.capture_id) or None,
            )
            for kind, value in zip(_KINDS, vocabulary, strict=True):
                if value is not None:
                    wanted.add((kind, value))
            events_rows.append(
                (
                    position,
                    *event_keys(captured.event_id),
                    terms.event_time,
                    timestamp_micros(captured.record_time),
                    terms.declaration_time,
                    *vocabulary,
                    _indexable(terms.transformation_id),
                    _indexable(terms.error_reason),
                )
            )
            corrections.extend(
                (position, stored_event_id(i)) for i in terms.corrective_ids if _fits(i)
            )
            persistent.extend((position, *row) for row in terms.persistent if _fits(row[1]))
            if terms.sensor_elements:
                sensors.append((position, terms))
            identified.append((position, terms))
            transactions.extend(
                (position, *row) for row in terms.biz_transactions if _fits(row[0], row[1])
            )
            parties.extend((position, *row) for row in terms.parties if _fits(row[1], row[2]))
            for scope, name, text, number, instant in terms.fields:
                if _fits(name):
                    field = (FIELD, field_term(scope, name))
                    wanted.add(field)
                    text = text if _fits(name, text) else None
                    if number is not None or instant is not None:
                        wanted.add((FIELD_NUMBERS, field[1]))
                    elif text is not None:
                        wanted.add((FIELD_TEXTS, field[1]))
                    fields.append((position, field, text, number, instant))
        numbers = self._terms.numbers(conn, wanted)
        conn.insert_many("epcis_events", EVENT_COLUMNS, _numbered(events_rows, numbers))
        # Pipelined, PostgreSQL stores the event rows while their EPC rows, the most
        # Python work of a capture's rows, are made here.
        for position, terms in identified:
            # Once each: an EPC listed twice in one role is one row (SQLite's key).
            lengths = terms.prefix_lengths
            epcs.extend(
                dict.fromkeys(
                    (position, ROLE_NUMBERS[role], stored_id(epc), lengths.get(epc))
                    for role, epc in terms.epcs
                    if _fits(epc)
                )
            )
            quantities.extend(
                (position, ROLE_NUMBERS[row[0]], stored_id(row[1]), *row[2:], lengths.get(row[1]))
                for row in terms.quantities
                if _fits(row[1])
            )
        conn.insert_many("epcis_event_epcs", ("position", "role", "epc", "prefix"), epcs)
        conn.insert_many(
            "epcis_event_quantities",
            (
                "position",
                "role",
                "epc_class",
                "quantity",
                "uom",
                "dimension",
                "si_quantity",
                "prefix",
            ),
            quantities,
        )
        conn.insert_many(
            "epcis_event_biz_transactions", ("position", "type", "value"), transactions
        )
        conn.insert_many("epcis_event_parties", ("position", "direction", "type", "value"), parties)
        conn.insert_many("epcis_event_corrections", ("position", "event_id"), corrections)
        conn.insert_many(
            "epcis_event_fields",
            ("position", "field", "text_value", "number_value", "time_value"),
            [(position, numbers[field], *values) for position, field, *values in fields],
        )
        conn.insert_many(
            "epcis_event_persistent_dispositions", ("position", "kind", "disposition"), persistent
        )
        insert_sensor_rows(conn, sensors)
        record_prefixes(conn, events, accounts)
