"""What signing in changes on a user's record: when they last came.

Failed sign-ins change nothing on the record: they lock the password sign-in for a while
(`Throttle.begin`), never the account; suspending one is an administrator's decision.
"""

from datetime import UTC, datetime

from application.items.service import ItemsService
from application.items.unit_of_work import Origin
from domain.collections.coercion import format_datetime


class AccountStatus:
    """Writes sign-in's effects to `users` through the items service, so they are events
    with history like any other change."""

    def __init__(self, items: ItemsService) -> None:
        self._items = items

    async def signed_in(self, user_id: str, ip: str | None, user_agent: str | None) -> None:
        """Note when a user last signed in (`last_access`), and from where."""
        now = format_datetime(datetime.now(UTC))
        origin = Origin(user_id, ip, user_agent)
        await self._items.set_values("users", user_id, {"last_access": now}, origin=origin)
