"""The lineage of an item (`GET /trace`): what it went into, what went into it, at a time,
from the lineage tables, limited to the events the caller may read."""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from application.access.event_scope import EventScope, EventScopes
from application.service.blocking import BlockingRunner
from application.service.errors import InvalidQuery
from domain.access.policies import Accountability
from domain.epcis.lineage_terms import (
    CONTAINED_IN,
    MEMBER_OF,
    is_class,
    urn_of,
)
from domain.epcis.timestamps import InvalidTimestamp, parse_timestamp, to_micros
from domain.gs1 import canonical_epc
from domain.gs1.epc import gs1_key_path
from domain.gs1.link_to_urn import CompanyPrefixes, company_prefix, company_prefix_at, epc_urn_at
from infrastructure.connection import Connection
from projections.epcis.company_prefixes import CompanyPrefixReader
from projections.epcis.lineage_reader import LineageReader, LinkRow, StateRow

DIRECTIONS = ("downstream", "upstream", "both")
DEFAULT_DEPTH = 10
#: EPC URN schemes of GS1 keys: written so, an identifier must parse as one.
_GS1_SCHEMES = re.compile(
    r"urn:epc:(?:id|class|idpat):(?:sgtin|sscc|sgln|grai|giai|gsrn|gsrnp|gdti|cpi|sgcn|ginc"
    r"|gsin|itip|upui|pgln|lgtin):"
)
_URN = re.compile(r"urn:[A-Za-z0-9][A-Za-z0-9-]{0,31}:\S+")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CBV_WEB = re.compile(r"https://ref\.gs1\.org/cbv/[A-Za-z]+-(.+)")


@dataclass(frozen=True)
class TraceRequest:
    """What `GET /trace` asks: an identifier, a direction, a depth and a moment."""

    epc: str
    direction: str = "both"
    depth: int = DEFAULT_DEPTH
    #: Microseconds since the epoch; the relations that held then are followed.
    at: int = 0


@dataclass(frozen=True)
class TraceNode:
    """An EPC or class of the graph, with the latest event that names it."""

    id: str
    kind: str
    digital_link: str | None
    #: The latest readable event naming it, at the trace's moment (all None without one).
    event_time: str | None = None
    biz_step: str | None = None
    disposition: str | None = None
    biz_location: str | None = None
    read_point: str | None = None
    #: What it is contained in at the trace's moment.
    parent: str | None = None


@dataclass(frozen=True)
class TraceEdge:
    """A relation that held at the trace's moment, and the event that made it."""

    source: str
    target: str
    relation: str
    event_id: str
    event_time: str
    #: When a later DELETE ended it, if one did.
    until: str | None


@dataclass
class Trace:
    """The lineage graph."""

    root: str
    nodes: list[TraceNode] = field(default_factory=list)
    edges: list[TraceEdge] = field(default_factory=list)
    #: Whether the node cap stopped the walk before its depth.
    truncated: bool = False


def parse_trace_request(query: Mapping[str, str], max_depth: int, now: datetime) -> TraceRequest:
    """The trace request of a query string; InvalidQuery for what cannot be read."""
    epc = (query.get("epc") or "").strip()
    if not epc:
        raise InvalidQuery('"epc" is required: an EPC or class as a URN or a GS1 Digital Link')
    if not _readable_identifier(epc):
        raise InvalidQuery(f'"epc" {epc!r} is neither an EPC URN nor a GS1 Digital Link URI')
    direction = query.get("direction") or "both"
    if direction not in DIRECTIONS:
        raise InvalidQuery(f'"direction" must be one of {", ".join(DIRECTIONS)}')
    depth_text = query.get("depth")
    depth = min(DEFAULT_DEPTH, max_depth)
    if depth_text is not None:
        if not depth_text.isdigit() or not 0 <= int(depth_text) <= max_depth:
            raise InvalidQuery(f'"depth" must be a whole number from 0 to {max_depth}')
        depth = int(depth_text)
    at_text = query.get("at")
    moment = now
    if at_text is not None:
        try:
            moment = parse_timestamp(at_text)
        except InvalidTimestamp as exc:
            raise InvalidQuery(f'"at": {exc}') from exc
    return TraceRequest(epc, direction, depth, to_micros(moment))


def _readable_identifier(epc: str) -> bool:
    if gs1_key_path(epc) is not None:
        return True
    if epc.startswith(("http://", "https://")) or _GS1_SCHEMES.match(epc):
        return False
    return _URN.fullmatch(epc) is not None


def _time_text(micros: int) -> str:
    moment = _EPOCH + timedelta(microseconds=micros)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _cbv_word(value: str | None) -> str | None:
    """A standard CBV value as its bare word (`shipping`), as EPCIS 2.0 JSON writes it."""
    if value is None:
        return None
    match = _CBV_WEB.fullmatch(value)
    return match.group(1) if match else value


class LineageService:
    """Walks the lineage tables a hop at a time, every hop one batch of queries."""

    def __init__(
        self,
        reader: LineageReader,
        prefixes: CompanyPrefixReader,
        scopes: EventScopes,
        blocking: BlockingRunner,
        *,
        max_depth: int,
        max_nodes: int,
        link_base: str,
    ) -> None:
        self._reader = reader
        self._prefixes = prefixes
        self._scopes = scopes
        self._blocking = blocking
        self.max_depth = max_depth
        self._max_nodes = max_nodes
        self._link_base = link_base.rstrip("/")

    async def trace(self, caller: Accountability, query: Mapping[str, str]) -> Trace:
        """The lineage graph a caller asks for: Forbidden without read on `epcis_event`,
        InvalidQuery for parameters that cannot be read."""
        scope = await self._scopes.event_scope(caller, "read")
        request = parse_trace_request(query, self.max_depth, datetime.now(UTC))
        return await self._blocking.run(self._trace, request, scope)

    def _trace(self, request: TraceRequest, scope: EventScope) -> Trace:
        with self._reader.reading() as conn:
            return self._trace_in(conn, request, scope)

    def _trace_in(self, conn: Connection, request: TraceRequest, scope: EventScope) -> Trace:
        walk = _Walk(self._reader, conn, request.at, scope, self._max_nodes)
        root = canonical_epc(request.epc)
        walk.nodes[root] = None
        length = _prefix_length(request.epc)
        if length is not None:
            walk.prefixes[root] = length
        if request.direction in ("downstream", "both"):
            walk.run(root, request.depth, downstream=True)
        if request.direction in ("upstream", "both"):
            walk.run(root, request.depth, downstream=False)
        parents = walk.parents()
        states = self._reader.latest(conn, walk.nodes, request.at, scope)
        prefixes: list[CompanyPrefixes] = []

        def name(key: str) -> str:
            length = walk.prefixes.get(key)
            urn = None if length is None else _urn_at(key, length)
            if urn is not None:
                # As an event spelled it (in its canonical spelling).
                return urn
            # Only an EPC no event spelled as a URN needs the organisations' prefixes.
            if not prefixes:
                prefixes.append(self._known_prefixes(walk.prefixes.items()))
            return urn_of(key, prefixes[0]) or key

        event_ids = self._reader.event_ids(conn, {edge.position for edge in walk.edges.values()})
        trace = Trace(root=name(root), truncated=walk.truncated)
        for key in walk.nodes:
            trace.nodes.append(self._node(key, name, states.get(key), parents.get(key)))
        for edge in walk.edges.values():
            trace.edges.append(
                TraceEdge(
                    name(edge.source),
                    name(edge.target),
                    edge.relation,
                    event_ids[edge.position],
                    _time_text(edge.event_time),
                    None if edge.until is None else _time_text(edge.until),
                )
            )
        return trace

    def _known_prefixes(self, lengths: Iterable[tuple[str, int]]) -> CompanyPrefixes:
        """Company prefixes of the organisations, and of the identifiers events spelled
        as URNs (identifier, length of its company prefix)."""
        found = {p for key, length in lengths if (p := company_prefix_at(key, length))}
        return self._prefixes.prefixes().merged(found)

    def _node(
        self, key: str, name: Callable[[str], str], state: StateRow | None, parent: str | None
    ) -> TraceNode:
        path = gs1_key_path(key)
        node = TraceNode(
            id=name(key),
            kind="class" if is_class(key) else "instance",
            digital_link=None if path is None else f"{self._link_base}/{path}",
            parent=None if parent is None else name(parent),
        )
        if state is None:
            return node
        return replace(
            node,
            event_time=_time_text(state.event_time),
            biz_step=_cbv_word(state.biz_step),
            disposition=_cbv_word(state.disposition),
            biz_location=None if state.biz_location is None else name(state.biz_location),
            read_point=None if state.read_point is None else name(state.read_point),
        )


def _prefix_length(epc: str) -> int | None:
    """The length of the company prefix of an identifier spelled as an EPC URN."""
    prefix = company_prefix(epc) if epc.startswith("urn:") else None
    return None if prefix is None else len(prefix)


# Answers name the same EPCs again and again (every edge names two): one conversion each.
@lru_cache(maxsize=16384)
def _urn_at(key: str, length: int) -> str | None:
    """The EPC URN of a canonical identifier whose company prefix has `length` digits."""
    return epc_urn_at(key, length)


class _Walk:
    """One trace's walk: the nodes and edges found, and the company prefix lengths events
    told by spelling identifiers as URNs."""

    def __init__(
        self, reader: LineageReader, conn: Connection, at: int, scope: EventScope, max_nodes: int
    ) -> None:
        self._reader = reader
        self._conn = conn
        self._at = at
        self._scope = scope
        self._max_nodes = max_nodes
        #: The nodes, in the order found (a dict keeps it).
        self.nodes: dict[str, None] = {}
        #: Identifier → the length of its company prefix, where an event spelled it as a URN.
        self.prefixes: dict[str, int] = {}
        self.edges: dict[tuple[str, str, str], LinkRow] = {}
        self.truncated = False

    def run(self, root: str, depth: int, *, downstream: bool) -> None:
        """Follow the relations from `root` in one direction, hop by hop."""
        frontier = [root]
        seen = {root}
        for _ in range(depth):
            if not frontier:
                return
            found = self._holding(
                self._reader.links(self._conn, frontier, downstream, self._at, self._scope)
            )
            frontier = []
            for link in found:
                key = (link.source, link.target, link.relation)
                if key not in self.edges or link.event_time < self.edges[key].event_time:
                    self.edges[key] = link
                # From a lot downstream to its members, from an item upstream to its lot:
                # member_of is walked against its direction, the others along it.
                along = (link.relation == MEMBER_OF) != downstream
                far = link.target if along else link.source
                if far in seen:
                    continue
                if len(self.nodes) >= self._max_nodes:
                    self.truncated = True
                    continue
                seen.add(far)
                self.nodes[far] = None
                frontier.append(far)

    def _name(self, link: LinkRow) -> None:
        for key, length in ((link.source, link.source_prefix), (link.target, link.target_prefix)):
            if length is not None:
                self.prefixes.setdefault(key, length)

    def parents(self) -> dict[str, str]:
        """The parent each node is contained in at the trace's moment (the latest)."""
        found = self._holding(
            self._reader.links(
                self._conn, list(self.nodes), True, self._at, self._scope, parents_only=True
            )
        )
        parents: dict[str, tuple[int, str]] = {}
        for link in found:
            if link.relation != CONTAINED_IN or link.source not in self.nodes:
                continue
            known = parents.get(link.source)
            if known is None or link.event_time > known[0]:
                parents[link.source] = (link.event_time, link.target)
        return {child: parent for child, (_, parent) in parents.items()}

    def _holding(self, links: list[LinkRow]) -> list[LinkRow]:
        """The links that still held at the trace's moment."""
        holding = [link for link in links if link.until is None or link.until > self._at]
        for link in holding:
            self._name(link)
        return holding
