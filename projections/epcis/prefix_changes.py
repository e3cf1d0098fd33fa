"""Whether a stretch of the event log bound a CURIE prefix anew: a (prefix, namespace,
account) that `epcis_prefixes` did not hold, so what a query's CURIEs mean may change.

Most captures bind the prefixes earlier documents of their account bound already; only a
binding not seen before counts. Known from what this process's projection runner applied
(in memory); a stretch it did not see (another process applied it) counts as a change.
"""

import threading
from collections.abc import Sequence
from typing import Any

from domain.epcis.capture_job import CaptureJob
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.curies import event_namespaces
from infrastructure.event_store import LoggedEvent
from projections.applied_stretch import AppliedStretch

_CAPTURED = (CapturedEvent.Captured, CapturedEvent.AlsoCaptured)


class PrefixChanges:
    """Finds new prefix bindings in what the projection runner applies (`applied`)."""

    def __init__(self, most: int = 10_000) -> None:
        """`most` bounds the bindings and the captures' accounts remembered: past it they
        are forgotten, and every binding counts as new until seen again."""
        self._most = most
        self._lock = threading.Lock()
        self._stretch = AppliedStretch()
        self._bindings: set[tuple[str, str, str]] = set()
        #: The account of each capture whose job was applied (empty: none).
        self._accounts: dict[str, str] = {}

    def applied(self, events: Sequence[LoggedEvent], after: int, upto: int) -> None:
        """The projection runner applied every event it follows in (after, upto]:
        `events`, capture jobs and captured events among them."""
        changed = 0
        # The events of a capture mostly share their document's bindings: those are
        # looked at once, and again only for an event with a context of its own.
        looked_at: tuple[str, dict[str, str]] | None = None
        with self._lock:
            for logged in events:
                event: Any = logged.event
                if isinstance(event, CaptureJob.Completed):
                    self._remember_account(event.capture_id, event.account or "")
                elif isinstance(event, _CAPTURED):
                    if "@context" not in event.epcis_event:
                        if looked_at == (event.capture_id, event.namespaces):
                            continue
                        looked_at = (event.capture_id, event.namespaces)
                    if self._binds_anew(event):
                        changed = logged.position
        self._stretch.shown(after, upto, changed)

    def known(self, after: int, upto: int) -> bool | None:
        """Whether (after, upto] bound a prefix anew, from memory: None when the runner
        did not show all of that stretch."""
        return self._stretch.known(after, upto)

    def _binds_anew(self, event: Any) -> bool:
        if not event.namespaces and "@context" not in event.epcis_event:
            return False
        account = self._accounts.get(event.capture_id)
        if account is None:  # its job was applied by another runner, or forgotten
            return True
        bindings = event_namespaces(event.epcis_event, event.namespaces)
        new = {(prefix, namespace, account) for prefix, namespace in bindings.items()}
        new -= self._bindings
        if not new:
            return False
        if len(self._bindings) + len(new) > self._most:
            self._bindings.clear()
        self._bindings |= new
        return True

    def _remember_account(self, capture_id: str, account: str) -> None:
        if len(self._accounts) >= self._most:
            self._accounts.clear()
        self._accounts[capture_id] = account
