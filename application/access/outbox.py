"""E-mail leaves in the background: the request that causes a mail does not wait for it,
and a mail that cannot be sent is retried and logged, never failing that request."""

import asyncio
import logging

from infrastructure.mailer import Mail, Mailer

log = logging.getLogger(__name__)

#: Seconds between attempts; one more attempt than there are delays.
RETRY_DELAYS = (1.0, 5.0, 30.0)


class Outbox:
    """Sends mail in background tasks, with retries."""

    def __init__(self, mailer: Mailer, retry_delays: tuple[float, ...] = RETRY_DELAYS) -> None:
        self._mailer = mailer
        #: Seconds between attempts; one more attempt than there are delays.
        self.retry_delays = retry_delays
        self._tasks: set[asyncio.Task[None]] = set()

    def post(self, mail: Mail) -> None:
        """Send a mail soon; failures are retried and logged."""
        task = asyncio.get_running_loop().create_task(self._deliver(mail))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver(self, mail: Mail) -> None:
        for attempt, delay in enumerate((*self.retry_delays, None), start=1):
            try:
                await self._mailer.send(mail)
                return
            except Exception as exc:
                if delay is None:
                    log.error("giving up on mail %r to %s: %s", mail.subject, mail.to, exc)
                    return
                log.warning(
                    "mail %r to %s failed (attempt %d): %s; retrying in %.0f s",
                    mail.subject,
                    mail.to,
                    attempt,
                    exc,
                    delay,
                )
                await asyncio.sleep(delay)

    async def flush(self) -> None:
        """Wait for mail in flight (at shut-down, and in tests); a mail still retrying
        after ten seconds is given up."""
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=10.0)
            for task in pending:
                task.cancel()
