"""Running a flow on request and reading its delivery log (`/run`, `/runs`)."""

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from application.flows.outbound import FLOWS, RUNS, OutboundFlows, RunSummary
from application.items.service import ItemList, ItemsService
from application.service.errors import Forbidden, InvalidQuery
from domain.access.policies import SYSTEM, Accountability
from domain.collections.filters import And, Condition, Or, Related
from domain.collections.item_query import ItemQuery


class FlowControl:
    """What a user may do to a flow beyond editing it: run it now, read its runs."""

    def __init__(
        self, items: ItemsService, flows: OutboundFlows, settle: Callable[[], Awaitable[Any]]
    ) -> None:
        self._items = items
        self._flows = flows
        #: Brings the read models up to the run's writes: a client reads what it ran.
        self._settle = settle

    async def run_now(self, caller: Accountability, key: str) -> RunSummary:
        """Run the flow once now (permission `update` on it)."""
        if not await self._items.allows(caller, FLOWS, "update", key) or (
            await self._items.lookup(FLOWS, key) is None
        ):
            raise Forbidden(f'You don\'t have permission to "update" this "{FLOWS}" item.')
        summary = await self._flows.run(key)
        await self._settle()
        return summary

    async def runs(self, caller: Accountability, key: str, query: ItemQuery) -> ItemList:
        """The flow's delivery attempts, newest first unless the query sorts (permission
        `read` on the flow)."""
        if not await self._items.allows(caller, FLOWS, "read", key):
            raise Forbidden(f'You don\'t have permission to "read" this "{FLOWS}" item.')
        # Read with the service's rights, so only the runs' own fields: a relational
        # field or filter would reach the flow's connection, its owner…
        paths = [*query.fields, *(path for path, _ in query.sort), *_filter_paths(query.filter)]
        if any("." in path for path in paths) or _related(query.filter):
            raise InvalidQuery("Runs are read by their own fields only (no relational paths)")
        own: Any = Condition(("flow",), "_eq", key)
        query = dataclasses.replace(
            query,
            filter=own if query.filter is None else And((own, query.filter)),
            sort=query.sort or (("started_at", True), ("id", True)),
        )
        return await self._items.read_many(SYSTEM, RUNS, query)


def _filter_paths(node: Any) -> list[str]:
    """The dotted paths a filter names."""
    if node is None:
        return []
    if isinstance(node, And | Or):
        return [path for item in node.items for path in _filter_paths(item)]
    if isinstance(node, Condition):
        return [".".join(node.path)]
    return []


def _related(node: Any) -> bool:
    """Whether a filter reaches into related items."""
    if isinstance(node, And | Or):
        return any(_related(item) for item in node.items)
    return isinstance(node, Related)
