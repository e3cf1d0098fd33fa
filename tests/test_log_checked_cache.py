"""The per-process cache of values read from the read models (callers, prefix bindings):
bounded, safe under threads, and never serving what the log says has changed."""

import threading
from collections.abc import Callable

from application.service.log_checked_cache import MISSING, LogCheckedCache


class Log:
    """A stand-in for the log and the read models: positions, and which changed access."""

    def __init__(self) -> None:
        self.reached = 0
        self.access_changes: set[int] = set()
        self.reads: list[tuple[int, int]] = []

    def append(self, changes_access: bool = False) -> None:
        self.reached += 1
        if changes_access:
            self.access_changes.add(self.reached)

    def changed(self, after: int, upto: int) -> bool:
        self.reads.append((after, upto))
        return any(after < p <= upto for p in self.access_changes)


def cache_on(log: Log, size: int = 10) -> LogCheckedCache:
    return LogCheckedCache(log.changed, lambda: log.reached, size)


def reader(value: str) -> Callable[[], str]:
    return lambda: value


def test_a_value_read_once_is_answered_from_memory() -> None:
    cache = cache_on(Log())
    cache.read_through("a", reader("alice"))
    assert cache.get("a") == "alice"


def test_nothing_is_answered_for_a_key_never_read() -> None:
    cache = cache_on(Log())
    cache.read_through("a", reader("alice"))
    assert cache.get("b") is MISSING


def test_a_value_is_not_answered_once_the_read_models_moved_until_the_log_is_read() -> None:
    log = Log()
    cache = cache_on(log)
    cache.read_through("a", reader("alice"))
    log.append()
    assert cache.get("a") is MISSING
    cache.settle()
    assert cache.get("a") == "alice"
    assert log.reads == [(0, 1)]


def test_a_change_of_access_in_the_log_forgets_every_value() -> None:
    log = Log()
    cache = cache_on(log)
    cache.read_through("a", reader("alice"))
    cache.read_through("b", reader("bob"))
    log.append(changes_access=True)
    cache.settle()
    assert (cache.get("a"), cache.get("b")) == (MISSING, MISSING)


def test_a_read_begun_before_a_change_is_not_kept() -> None:
    log = Log()
    cache = cache_on(log)

    def read_while_access_changes() -> str:
        log.append(changes_access=True)
        cache.settle()  # another request takes in the change meanwhile
        return "stale"

    assert cache.read_through("a", read_while_access_changes) == "stale"
    assert cache.get("a") is MISSING


def test_read_models_that_went_back_forget_every_value() -> None:
    log = Log()
    log.append()
    cache = cache_on(log)
    cache.read_through("a", reader("alice"))
    log.reached = 0  # a replay rebuilt them
    cache.settle()
    log.reached = 1
    assert cache.get("a") is MISSING


def test_none_is_not_kept() -> None:
    calls: list[int] = []
    cache = cache_on(Log())

    def unknown() -> None:
        calls.append(1)

    cache.read_through("token", unknown)
    assert cache.get("token") is MISSING


def test_the_least_recently_used_go_first_beyond_the_size() -> None:
    cache = cache_on(Log(), size=2)
    cache.read_through("a", reader("alice"))
    cache.read_through("b", reader("bob"))
    cache.get("a")
    cache.read_through("c", reader("carol"))
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("alice", MISSING, "carol")
    assert len(cache) == 2


def test_size_zero_keeps_nothing() -> None:
    cache = cache_on(Log(), size=0)
    assert cache.read_through("a", reader("alice")) == "alice"
    assert cache.get("a") is MISSING


def test_threads_reading_and_changing_together_keep_the_bound_and_never_fail() -> None:
    log = Log()
    cache = cache_on(log, size=50)
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(300):
                key = (n * 7 + i) % 120
                if cache.get(key) is MISSING:
                    assert cache.read_through(key, reader(f"v{key}")) == f"v{key}"
                if i % 50 == 0:
                    with lock:
                        log.append(changes_access=i % 100 == 0)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) <= 50
    cache.settle()
    assert all(cache.get(k) in (MISSING, f"v{k}") for k in range(120))


def test_a_log_that_moved_without_a_change_of_access_is_answered_without_a_read() -> None:
    log = Log()
    cache = cache_on(log)
    cache.read_through("a", reader("alice"))
    log.append()

    def must_not_read() -> str:
        raise AssertionError("read again")

    assert cache.read_through("a", must_not_read) == "alice"


def known_cache_on(log: Log, known: dict[tuple[int, int], bool | None]) -> LogCheckedCache:
    return LogCheckedCache(
        log.changed, lambda: log.reached, 10, known=lambda a, b: known.get((a, b))
    )


def test_a_stretch_known_to_change_nothing_is_answered_without_reading_the_log() -> None:
    log = Log()
    cache = known_cache_on(log, {(0, 1): False})
    cache.read_through("a", reader("alice"))
    log.append()
    assert cache.get("a") == "alice"
    assert log.reads == []


def test_a_stretch_known_to_change_access_forgets_every_value_without_reading_the_log() -> None:
    log = Log()
    cache = known_cache_on(log, {(0, 1): True})
    cache.read_through("a", reader("alice"))
    log.append(changes_access=True)
    assert cache.get("a") is MISSING
    assert log.reads == []
    assert len(cache) == 0


def test_a_stretch_not_known_is_read_from_the_log() -> None:
    log = Log()
    cache = known_cache_on(log, {})
    cache.read_through("a", reader("alice"))
    log.append()
    assert cache.get("a") is MISSING
    cache.settle()
    assert log.reads == [(0, 1)]
