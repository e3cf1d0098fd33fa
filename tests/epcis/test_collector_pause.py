"""The garbage collector pauses while captures work, and resumes when the last ends."""

import gc
import threading
from collections.abc import Iterator

import pytest

from application.epcis.collector_pause import collector_paused


@pytest.fixture(autouse=True)
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collection_is_paused_inside_and_resumed_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_pauses_resume_only_when_the_last_ends() -> None:
    first_in, second_done = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            first_in.wait()
        second_done.set()

    thread = threading.Thread(target=other)
    with collector_paused():
        thread.start()
        first_in.set()
        second_done.wait()
        assert not gc.isenabled()
    thread.join()
    assert gc.isenabled()


def test_a_collector_disabled_by_someone_else_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_an_error_inside_still_resumes_collection() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("capture failed")
    assert gc.isenabled()
