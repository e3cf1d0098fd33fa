"""How a query's CURIEs are read: by its own bindings, else by those the captured
documents of the caller's accounts agree on; a prefix they bind to several namespaces is
refused, not guessed. Queries and partner read rules read CURIEs this one way."""

from collections.abc import Collection, Mapping, Sequence

from application.service.blocking import BlockingRunner
from application.service.log_checked_cache import MISSING, LogCheckedCache
from domain.epcis.query_curies import PrefixBindings, expand_query, query_prefixes
from projections.epcis.prefixes import PrefixReader


class QueryPrefixes:
    """Expands the CURIEs of query parameters that name IRIs."""

    def __init__(
        self, reader: PrefixReader, blocking: BlockingRunner, cache: LogCheckedCache | None = None
    ) -> None:
        """`cache` keeps what was read, forgotten when the log binds a prefix anew
        (`projections.epcis.prefix_changes`)."""
        self._reader = reader
        self._blocking = blocking
        self._cache = cache

    async def expanded(
        self,
        params: Mapping[str, Sequence[str]],
        given: Mapping[str, str],
        accounts: Sequence[str] | None = None,
    ) -> Mapping[str, Sequence[str]]:
        """`params` with their CURIEs expanded, `given` binding before the documents the
        `accounts` captured (None: any account) do. Raises QueryParameterError for an
        ambiguous prefix."""
        used = query_prefixes(params)
        if not used:
            return params
        wanted = used - given.keys()
        found = await self.bindings(wanted, accounts) if wanted else PrefixBindings()
        return expand_query(params, {**found.namespaces, **given}, found.ambiguous)

    async def bindings(
        self, prefixes: Collection[str], accounts: Sequence[str] | None
    ) -> PrefixBindings:
        """`bound`, off the event loop; from memory, without a trip to a worker thread,
        when it is kept and the log has not moved since."""
        if self._cache is not None:
            kept: PrefixBindings = self._cache.get(_key(prefixes, accounts))
            if kept is not MISSING:
                return kept
        return await self._blocking.run(self.bound, prefixes, accounts)

    def bound(self, prefixes: Collection[str], accounts: Sequence[str] | None) -> PrefixBindings:
        """What the documents the `accounts` captured (None: any account) bound each of
        `prefixes` to: one namespace, or several (ambiguous). Blocks: run it off the loop."""
        if self._cache is None:
            return self._bound(prefixes, accounts)
        key = _key(prefixes, accounts)
        return self._cache.read_through(key, self._bound, prefixes, accounts)

    def _bound(self, prefixes: Collection[str], accounts: Sequence[str] | None) -> PrefixBindings:
        prefixes = _stored_kind(prefixes)
        found = self._reader.bindings(sorted(prefixes), accounts) if prefixes else {}
        return PrefixBindings.of(found)

    def bound_per_account(self, prefixes: Collection[str]) -> list[PrefixBindings]:
        """What the documents of each account bound each of `prefixes` to, one entry per
        account that bound any. Blocks: run it off the loop."""
        prefixes = _stored_kind(prefixes)
        found = self._reader.bindings_per_account(sorted(prefixes)) if prefixes else {}
        return [PrefixBindings.of(bindings) for _, bindings in sorted(found.items())]

    async def known(self, accounts: Sequence[str] | None) -> dict[str, str]:
        """The prefixes the documents the `accounts` captured (None: any account) bound,
        each to one namespace (a prefix bound to several means nothing of its own)."""
        found = await self._blocking.run(self._reader.all_bindings, accounts)
        return dict(sorted(PrefixBindings.of(found).namespaces.items()))


def _key(
    prefixes: Collection[str], accounts: Sequence[str] | None
) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    return tuple(sorted(prefixes)), None if accounts is None else tuple(accounts)


def _stored_kind(prefixes: Collection[str]) -> set[str]:
    """The prefixes a stored document may bind: none holds NUL (storing refuses NUL, and
    PostgreSQL text cannot hold one), so such a prefix is left as written."""
    return {prefix for prefix in prefixes if "\x00" not in prefix}
