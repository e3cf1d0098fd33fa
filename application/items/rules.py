"""The hooks of a collection: what it adds to plain storage, and where bulk items live."""

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from domain.access.policies import Accountability

Item = dict[str, Any]
#: The current values of another item (collection, key) as the write sees them, or None.
Related = Callable[[str, Any], Item | None]


class CollectionRules:
    """What a collection adds to plain storage: derived values, cascades, guards.

    The base class adds nothing; system collections subclass it.
    """

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Values as they are stored: hash secrets, normalise, fill defaults."""
        return values

    def unique_value(self, field: str, value: Any) -> str:
        """The form in which a unique value is compared."""
        return str(value)

    def before_update(self, keys: Sequence[Any], changes: Item) -> None:
        """Refuse an update that would break the service (raise a PlatformError)."""

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Values the service works out from the others as they will be stored (a key
        from a GTIN); `current` is the stored item on update, None on create."""
        return values

    async def after_create(self, items: Sequence[Item]) -> None:
        """React to new items once they are stored (send a notification's mail)."""

    async def after_update(
        self, caller: Accountability, keys: Sequence[Any], changes: Item
    ) -> None:
        """React to changed items once they are stored (end sessions)."""


class BulkItems(Protocol):
    """Where the items of a bulk collection live (see `Collection.bulk`)."""

    def record(self, load: Callable[[str], Any], key: Any) -> Any:
        """The item `key` as a record: `values`, `deleted` and `update(changes, actor,
        at, ip=, user_agent=)`, over aggregates that `load` gets from the batch."""
