"""What signing in changes on a user's record: when they last came, and suspension after
too many failures in a row."""

import logging
from datetime import UTC, datetime

from application.errors import Unprocessable
from application.items.service import ItemsService
from application.items.unit_of_work import Origin
from domain.access.policies import SYSTEM
from domain.collections.coercion import format_datetime
from domain.collections.item_query import ItemQuery

log = logging.getLogger(__name__)


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

    async def suspend(self, user_id: str) -> None:
        """Suspend an account that failed to sign in too often in a row."""
        try:
            await self._items.update(
                SYSTEM, "users", [user_id], {"status": "suspended"}, ItemQuery(fields=("id",))
            )
        except Unprocessable:
            # Guessing must not lock everybody out: the last administrator stays active
            # (the per-address limit still slows the guesser down).
            log.warning("not suspending %s, the last active administrator", user_id)
