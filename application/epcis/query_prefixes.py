"""How a query's CURIEs are read: by its own bindings, else by those the captured
documents agree on; a prefix they bind to several namespaces is refused, not guessed."""

from collections.abc import Mapping, Sequence

from application.blocking import BlockingRunner
from domain.epcis.query_curies import expand_query, query_prefixes
from projections.epcis.prefixes import PrefixReader


class QueryPrefixes:
    """Expands the CURIEs of query parameters that name IRIs."""

    def __init__(self, reader: PrefixReader, blocking: BlockingRunner) -> None:
        self._reader = reader
        self._blocking = blocking

    async def expanded(
        self, params: Mapping[str, Sequence[str]], given: Mapping[str, str]
    ) -> Mapping[str, Sequence[str]]:
        """`params` with their CURIEs expanded, `given` binding before the captured
        documents do. Raises QueryParameterError for an ambiguous prefix."""
        used = query_prefixes(params)
        if not used:
            return params
        # No stored document binds a prefix holding NUL (storing refuses NUL), and
        # PostgreSQL text cannot hold one: such a prefix is left as written.
        wanted = sorted(p for p in used - given.keys() if "\x00" not in p)
        found = await self._blocking.run(self._reader.bindings, wanted) if wanted else {}
        agreed = {prefix: next(iter(ns)) for prefix, ns in found.items() if len(ns) == 1}
        ambiguous = {prefix for prefix, ns in found.items() if len(ns) > 1}
        return expand_query(params, {**agreed, **given}, ambiguous)

    async def known(self) -> dict[str, str]:
        """The prefixes captured documents bound, each to one namespace (a prefix bound
        to several means nothing of its own), by prefix."""
        found = await self._blocking.run(self._reader.all_bindings)
        return {prefix: next(iter(ns)) for prefix, ns in sorted(found.items()) if len(ns) == 1}
