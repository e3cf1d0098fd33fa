"""The cyclic garbage collector paused while a capture works through a document.

A 1,000-event document is some 50,000 objects that live until the capture ends; the
collector, triggered every 700 allocations, walked them again and again: about a third
of a capture's CPU in the service process. The document's objects form no cycles, so
reference counting frees them when the capture ends; whatever cyclic garbage anything
made meanwhile waits for the next collection after the pause.
"""

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pausing = 0
_resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic collection until this and every other overlapping pause ends
    (unless someone else had disabled it, in which case it stays so)."""
    global _pausing, _resume
    with _lock:
        if _pausing == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pausing += 1
    try:
        yield
    finally:
        with _lock:
            _pausing -= 1
            if _pausing == 0 and _resume:
                gc.enable()
