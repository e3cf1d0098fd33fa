"""How long failed sign-ins lock the password sign-in: longer with every failure in a row."""

from dataclasses import dataclass

#: Doublings past which the lock is the longest anyway (and 2**n stays a sane number).
_MOST_DOUBLINGS = 60


@dataclass(frozen=True)
class Backoff:
    """After `after` failures in a row a key is locked for `first` seconds, twice as long
    after each further failure, at most `longest`; a quiet `forget` seconds without a
    failure start the count again."""

    after: int
    first: float
    longest: float
    forget: float

    def lock_seconds(self, failures: int) -> float:
        """Seconds the `failures`-th failure in a row locks for (0: not locked)."""
        if failures < self.after:
            return 0.0
        doublings = min(failures - self.after, _MOST_DOUBLINGS)
        return float(min(self.first * 2**doublings, self.longest))
