"""The capture-job table behind `GET /v2/epcis/capture/{captureID}`."""

from collections.abc import Sequence
from typing import Any

import orjson

from domain.epcis.capture_job import CaptureJob
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.projection import Projection


class CaptureJobsProjection(Projection):
    """One row per capture job, with its counts and errors."""

    name = "capture_jobs"
    follows = (CaptureJob.Completed,)
    schema = (
        """CREATE TABLE IF NOT EXISTS epcis_capture_jobs (
            capture_id TEXT PRIMARY KEY,
            position {bigint} NOT NULL,
            error_behaviour TEXT NOT NULL,
            created_at TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            events_received INTEGER NOT NULL,
            events_stored INTEGER NOT NULL,
            events_already_present INTEGER NOT NULL,
            events_rejected INTEGER NOT NULL,
            errors TEXT NOT NULL,
            captured_by TEXT,
            account TEXT,
            declarations_stored INTEGER NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS epcis_capture_jobs_position ON epcis_capture_jobs (position)",
        "CREATE INDEX IF NOT EXISTS epcis_capture_jobs_account ON epcis_capture_jobs (account)",
    )
    tables = ("epcis_capture_jobs",)

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Insert a row per completed job."""
        rows: list[tuple[Any, ...]] = []
        for logged in events:
            job: Any = logged.event
            rows.append(
                (
                    job.capture_id,
                    logged.position,
                    job.error_behaviour,
                    job.created_at,
                    job.finished_at,
                    job.events_received,
                    job.events_stored,
                    job.events_already_present,
                    job.events_rejected,
                    orjson.dumps(job.errors).decode(),
                    job.captured_by,
                    getattr(job, "account", None),
                    getattr(job, "declarations_stored", 0),
                )
            )
        conn.executemany(
            "INSERT INTO epcis_capture_jobs (capture_id, position, error_behaviour, created_at,"
            " finished_at, events_received, events_stored, events_already_present,"
            " events_rejected, errors, captured_by, account, declarations_stored)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
