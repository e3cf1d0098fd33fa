"""The master-data tables: the newest definition of each vocabulary element, its children
and its attributes, for WD_readPoint/WD_bizLocation and HASATTR_/EQ_ATTR_."""

from collections.abc import Sequence
from typing import Any

import orjson

from domain.epcis.captured_master_data import CapturedMasterData
from domain.epcis.master_data import attribute_text, element_key, vocabulary_elements
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.projection import Projection

#: Longest text indexed (B-tree entry limit); longer values are kept, not matched.
_MAX_TEXT = 600


class MasterDataProjection(Projection):
    """One row per vocabulary element and account (the newest capture's), its children and
    attributes. Each account keeps its own master data: a tenant's capture never replaces
    another's (`account` is empty outside multi-tenant installations)."""

    name = "epcis_master_data"
    follows = (CapturedMasterData.Captured,)
    schema = (
        """CREATE TABLE IF NOT EXISTS epcis_vocabulary_elements (
            vocabulary {key_text} NOT NULL,
            element {key_text} NOT NULL,
            id TEXT NOT NULL,
            position {bigint} NOT NULL,
            capture_id TEXT NOT NULL,
            account {key_text} NOT NULL,
            attributes TEXT NOT NULL,
            children TEXT NOT NULL,
            PRIMARY KEY (vocabulary, element, account))""",
        """CREATE TABLE IF NOT EXISTS epcis_vocabulary_children (
            vocabulary {key_text} NOT NULL,
            parent {key_text} NOT NULL,
            child {key_text} NOT NULL,
            account {key_text} NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS epcis_vocabulary_children_parent"
        " ON epcis_vocabulary_children (vocabulary, parent)",
        """CREATE TABLE IF NOT EXISTS epcis_vocabulary_attributes (
            vocabulary {key_text} NOT NULL,
            element {key_text} NOT NULL,
            attribute {key_text} NOT NULL,
            text_value {key_text},
            account {key_text} NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS epcis_vocabulary_attributes_attribute"
        " ON epcis_vocabulary_attributes (attribute, text_value, element)",
        "CREATE INDEX IF NOT EXISTS epcis_vocabulary_attributes_element"
        " ON epcis_vocabulary_attributes (vocabulary, element)",
    )
    tables = (
        "epcis_vocabulary_attributes",
        "epcis_vocabulary_children",
        "epcis_vocabulary_elements",
    )

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Replace what each captured element's earlier definitions said."""
        for logged in events:
            captured: Any = logged.event
            document = {
                "epcisHeader": {"epcisMasterData": {"vocabularyList": captured.vocabulary_list}}
            }
            for element in vocabulary_elements(document, captured.namespaces):
                key = element_key(element.vocabulary, element.id)
                account = captured.account or ""
                where = (element.vocabulary, key, account)
                for table, column in (
                    ("epcis_vocabulary_elements", "element"),
                    ("epcis_vocabulary_children", "parent"),
                    ("epcis_vocabulary_attributes", "element"),
                ):
                    conn.execute(
                        f"DELETE FROM {table} WHERE vocabulary = ? AND {column} = ?"
                        " AND account = ?",
                        where,
                    )
                children = [element_key(element.vocabulary, child) for child in element.children]
                conn.execute(
                    "INSERT INTO epcis_vocabulary_elements (vocabulary, element, id, position,"
                    " capture_id, account, attributes, children) VALUES (?,?,?,?,?,?,?,?)",
                    (
                        element.vocabulary,
                        key,
                        element.id,
                        logged.position,
                        captured.capture_id,
                        account,
                        orjson.dumps([list(a) for a in element.attributes]).decode(),
                        orjson.dumps(list(element.children)).decode(),
                    ),
                )
                conn.insert_many(
                    "epcis_vocabulary_children",
                    ("vocabulary", "parent", "child", "account"),
                    [
                        (element.vocabulary, key, child, account)
                        for child in dict.fromkeys(children)
                    ],
                )
                conn.insert_many(
                    "epcis_vocabulary_attributes",
                    ("vocabulary", "element", "attribute", "text_value", "account"),
                    [
                        (element.vocabulary, key, name, _short(attribute_text(value)), account)
                        for name, value in element.attributes
                    ],
                )


def _short(text: str | None) -> str | None:
    return text if text is None or len(text) <= _MAX_TEXT else None
