"""Which stretches of the log bound a CURIE prefix anew, as the projection runner shows
them: a (prefix, namespace, account) not seen before counts; the same again, and events
binding nothing, do not; a stretch the runner did not show is not known."""

import uuid

from domain.epcis.capture_job import CaptureJob
from domain.epcis.captured_event import CapturedEvent
from infrastructure.event_store import LoggedEvent
from projections.epcis.prefix_changes import PrefixChanges
from tests.epcis.documents import object_event

EX = "https://vocabulary.example.com/supply/"
OTHER = "https://elsewhere.example.com/"


class Log:
    """Captures numbered by log position, shown to `changes` as the runner would."""

    def __init__(self, changes: PrefixChanges) -> None:
        self.changes = changes
        self.position = 0

    def capture(
        self,
        namespaces: dict[str, str],
        account: str | None = None,
        *,
        own: dict[str, str] | None = None,
        with_job: bool = True,
    ) -> tuple[int, int]:
        """One job and one event binding `namespaces` (and `own` in its @context); the
        stretch (after, upto] they take."""
        capture_id = str(uuid.uuid4())
        after = self.position
        job = CaptureJob(capture_id, "rollback", "", "", 1, 1, 0, 0, [], None, account)
        fields = {"@context": [own]} if own else {}
        event = CapturedEvent.captured(
            f"urn:uuid:{uuid.uuid4()}", object_event(**fields), namespaces, "", capture_id
        )
        logged = []
        for item in ([job.collect_events()[0]] if with_job else []) + [event]:
            self.position += 1
            logged.append(LoggedEvent(self.position, item))
        self.changes.applied(logged, after, self.position)
        return after, self.position


def test_a_binding_not_seen_before_is_a_change() -> None:
    log = Log(PrefixChanges())
    after, upto = log.capture({"ex": EX})
    assert log.changes.known(after, upto) is True


def test_the_same_binding_again_is_no_change() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX})
    after, upto = log.capture({"ex": EX})
    assert log.changes.known(after, upto) is False


def test_a_document_binding_nothing_is_no_change() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX})
    after, upto = log.capture({})
    assert log.changes.known(after, upto) is False


def test_a_prefix_bound_to_another_namespace_is_a_change() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX})
    after, upto = log.capture({"ex": OTHER})
    assert log.changes.known(after, upto) is True


def test_the_same_binding_by_another_account_is_a_change() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX}, account="a")
    after, upto = log.capture({"ex": EX}, account="b")
    assert log.changes.known(after, upto) is True


def test_an_events_own_context_binds_too() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX})
    after, upto = log.capture({"ex": EX}, own={"rail": OTHER})
    assert log.changes.known(after, upto) is True


def test_an_event_whose_capture_account_is_not_known_is_a_change() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX})
    after, upto = log.capture({"ex": EX}, with_job=False)
    assert log.changes.known(after, upto) is True


def test_a_stretch_the_runner_did_not_show_is_not_known() -> None:
    log = Log(PrefixChanges())
    log.capture({"ex": EX})
    log.position += 5  # another runner applied these
    after, upto = log.capture({"ex": EX})
    assert log.changes.known(1, upto) is None
    assert log.changes.known(after, upto) is False


def test_past_the_most_remembered_every_binding_counts_again() -> None:
    log = Log(PrefixChanges(most=2))
    log.capture({"ex": EX, "other": OTHER})
    log.capture({"rail": OTHER})
    after, upto = log.capture({"ex": EX})
    assert log.changes.known(after, upto) is True


def test_an_event_binding_anew_after_others_of_its_capture_is_a_change() -> None:
    changes = PrefixChanges()
    capture_id = str(uuid.uuid4())
    job = CaptureJob(capture_id, "rollback", "", "", 3, 3, 0, 0, [], None, None)
    events = [
        CapturedEvent.captured(f"urn:uuid:{uuid.uuid4()}", event, {"ex": EX}, "", capture_id)
        for event in (
            object_event(),
            object_event(),
            object_event(**{"@context": [{"rail": OTHER}]}),
        )
    ]
    logged = [LoggedEvent(n + 1, e) for n, e in enumerate([job.collect_events()[0], *events])]
    changes.applied(logged[:3], 0, 3)
    changes.applied(logged[3:], 3, 4)
    assert changes.known(0, 3) is True
    assert changes.known(3, 4) is True
