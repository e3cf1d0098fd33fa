"""The codes' background work: run waiting jobs and reservations, and refill pools."""

from application.codes.jobs import IdentifierJobs
from application.codes.pools import CodePools
from application.codes.reservations import CodeReservations
from application.service.blocking import BlockingRunner
from projections.runner import ProjectionRunner


class CodeWork:
    """One pass of code work, run by the timer or by a test when it chooses."""

    def __init__(
        self,
        jobs: IdentifierJobs,
        reservations: CodeReservations,
        pools: CodePools,
        projections: ProjectionRunner,
        blocking: BlockingRunner,
    ) -> None:
        self._jobs = jobs
        self._reservations = reservations
        self._pools = pools
        self._projections = projections
        self._blocking = blocking

    async def run(self) -> None:
        """Run the identifier jobs and serve the reservations that are waiting."""
        await self._blocking.run(self._jobs.run_waiting)
        await self._reservations.run_waiting()
        # What the work wrote is readable once it returns.
        await self._blocking.run(self._projections.catch_up)

    async def refill_pools(self) -> None:
        """Order codes for the pools that run low, and run them."""
        if await self._blocking.run(self._pools.refill):
            await self.run()
