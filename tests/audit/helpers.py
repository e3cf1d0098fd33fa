"""Checking the audit API's answers as an auditor would: with the public key alone."""

import base64
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from application.service.runtime import Tracepoint
from domain.audit.heads import signed_bytes
from infrastructure.audit.tree_store import log_entries
from infrastructure.event_store import log_position, log_table
from tests.access.helpers import Client, call
from tests.epcis.documents import document, object_event


def event(n: int) -> dict[str, Any]:
    """A distinct object event with an ID of its own."""
    return object_event(
        eventID=f"urn:uuid:00000000-0000-4000-8000-{n:012d}",
        epcList=[f"urn:epc:id:sgtin:0614141.107346.{n}"],
    )


async def capture(client: Client, *numbers: int) -> None:
    """Capture one document of the events numbered so."""
    body = document(*(event(n) for n in numbers))
    status, answer = await call(client, "POST", "/v2/epcis/capture", body)
    assert status == 201, answer


def signature_holds(public_pem: str, head: dict[str, Any]) -> bool:
    """Whether the head's signature verifies with the key, over RFC 6962's signed form."""
    key: Any = load_pem_public_key(public_pem.encode())
    message = signed_bytes(head["tree_size"], bytes.fromhex(head["root_hash"]), head["timestamp"])
    try:
        key.verify(base64.b64decode(head["signature"]), message)
    except InvalidSignature:
        return False
    return True


def log_sql(tracepoint: Tracepoint, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Run SQL on the service's database as a tamperer would: `{log}` and `{position}`
    name the log's table and position column."""
    backend = tracepoint.database.dialect.name
    with tracepoint.database.transaction() as conn:
        conn.execute(sql.format(log=log_table(backend), position=log_position(backend)), params)


def positions(tracepoint: Tracepoint) -> list[int]:
    """The log's positions, in order."""
    with tracepoint.database.transaction(write=False) as conn:
        return [e.position for e in log_entries(conn, 0, 100_000)]


def entry_state(tracepoint: Tracepoint, position: int) -> bytes:
    """The stored bytes of the log entry at `position`."""
    with tracepoint.database.transaction(write=False) as conn:
        (entry,) = log_entries(conn, position - 1, 1)
    return entry.state


def change_entry(tracepoint: Tracepoint, position: int) -> None:
    """Flip a bit of the stored bytes of the entry at `position`."""
    changed = bytearray(entry_state(tracepoint, position))
    changed[-1] ^= 1
    log_sql(
        tracepoint, "UPDATE {log} SET state = ? WHERE {position} = ?", (bytes(changed), position)
    )
