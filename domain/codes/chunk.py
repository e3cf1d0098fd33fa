"""A chunk of generated codes: the unit in which codes are stored and change.

A job writes its codes a chunk at a time, one event per chunk, so a million codes make a
hundred events rather than a million. Later changes to codes (a reservation, a status set
by PATCH) are events on the chunks that hold them, and the store's version check on each
chunk keeps two writers from taking the same code.
"""

import uuid
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import event

from domain.aggregate import Aggregate

#: Codes' ids are UUIDs derived from their chunk and place in it.
_CODE_NAMESPACE = uuid.UUID("6f1c3b1e-6b9a-4c53-9b7e-0c6d1f3e2a71")

Values = dict[str, Any]


def chunk_id(job: str, offset: int) -> str:
    """The store identity of the chunk of a job that starts at its `offset`th code: a
    chunk is written once."""
    return f"codes:{job}:{offset}"


#: Positions take the last five hex digits of a code's id: chunks hold at most this many.
MAX_CHUNK = 16**5


def code_ids(chunk: str, count: int) -> list[str]:
    """The ids (UUIDs) of the first `count` codes of a chunk.

    One name-based UUID per chunk, its last five hex digits replaced by the position: a
    million ids cost a string format each instead of a SHA-1 each, and version and
    variant bits stay those of a version 5 UUID.
    """
    if count > MAX_CHUNK:
        raise ValueError(f"a chunk holds at most {MAX_CHUNK} codes")
    head = str(uuid.uuid5(_CODE_NAMESPACE, chunk))[:-5]
    return [f"{head}{position:05x}" for position in range(count)]


def code_id(chunk: str, position: int) -> str:
    """The id (a UUID) of the code at `position` in a chunk."""
    return code_ids(chunk, position + 1)[position]


@dataclass(frozen=True)
class CodeOrigin:
    """What every code of a chunk shares: job, type, product, where its links point."""

    job: str
    type: str
    #: Codes are unique within their scope (a GTIN's serials, all SSCCs, …).
    scope: str
    product: str | None
    #: The GTIN of sgtin codes.
    gtin: str | None
    account: str | None


class CodeChunk(Aggregate):
    """Up to a chunk's worth of codes of one job, and what happened to each since."""

    @staticmethod
    def create_id(job: str, offset: int) -> str:
        """The store identity of the chunk (see `chunk_id`)."""
        return chunk_id(job, offset)

    class Generated(Aggregate.Created):
        """A job generated these codes; `links` are their Digital Link URIs."""

        job: str
        offset: int
        type: str
        scope: str
        product: str | None
        gtin: str | None
        account: str | None
        codes: list[str]
        #: A code's Digital Link is this followed by the code (codes are letters and
        #: digits, which a URI path carries as they are).
        link_head: str
        actor: str | None
        at: str

    class Changed(Aggregate.Event):
        """The codes at these positions took these values (status, reservation, …)."""

        positions: list[int]
        changes: Values
        actor: str | None
        at: str
        ip: str | None = None
        user_agent: str | None = None

    @event(Generated)
    def __init__(
        self,
        job: str,
        offset: int,
        type: str,
        scope: str,
        product: str | None,
        gtin: str | None,
        account: str | None,
        codes: list[str],
        link_head: str,
        actor: str | None,
        at: str,
    ) -> None:
        self.origin = CodeOrigin(job, type, scope, product, gtin, account)
        self.codes = codes
        self.link_head = link_head
        self.created = (actor, at)
        #: Position → the values that differ from a new code's.
        self.changed: dict[int, Values] = {}

    def change(
        self,
        positions: list[int],
        changes: Values,
        actor: str | None,
        at: str,
        *,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        """Give the codes at `positions` these values (positions whose values would not
        change are left out)."""
        moved = [p for p in positions if any(self.value(p, k) != v for k, v in changes.items())]
        if moved:
            self._change(moved, changes, actor, at, ip=ip, user_agent=user_agent)

    @event(Changed)
    def _change(
        self,
        positions: list[int],
        changes: Values,
        actor: str | None,
        at: str,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        stamps = {"user_updated": actor, "date_updated": at}
        for position in positions:
            self.changed.setdefault(position, {}).update(changes, **stamps)

    def value(self, position: int, field: str) -> Any:
        """One field of the code at `position`."""
        return self.values(position).get(field)

    def values(self, position: int) -> Values:
        """Every field of the code at `position`, as its unique_code item shows it."""
        return {**new_code_values(self, position), **self.changed.get(position, {})}


def epc_join_key(gtin: str | None, code: str) -> str | None:
    """Joins a product's and a code's identifiers (`<gtin>-<code>`, sgtin only)."""
    return f"{gtin}-{code}" if gtin is not None else None


def new_code_values(chunk: CodeChunk, position: int) -> Values:
    """The fields of a code as it was generated."""
    origin = chunk.origin
    actor, at = chunk.created
    code = chunk.codes[position]
    return {
        "id": code_id(chunk.id, position),
        "digital_link": chunk.link_head + code,
        "code": code,
        "product": origin.product,
        "identifier_job": origin.job,
        "epc_join_key": epc_join_key(origin.gtin, code),
        "status": "unassigned",
        "reservation": None,
        "type": origin.type,
        "custom_id": None,
        "user_created": actor,
        "date_created": at,
        "user_updated": None,
        "date_updated": None,
        **({"account": origin.account} if origin.account is not None else {}),
    }
