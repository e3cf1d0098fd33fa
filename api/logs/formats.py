"""Log configuration: one handler on stderr, secrets masked, text or JSON lines.

JSON is made by the standard library's logging and orjson, not structlog: every module,
aiohttp, apscheduler and eventsourcing already log through `logging`, so one formatter on
the root handler covers them all without a second logging API or a new dependency.
"""

import logging
import sys
import traceback
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal, TextIO

import orjson

from api.logs.context import current_request_id
from api.logs.masking import mask_text, mask_value

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class SecretMasking(logging.Filter):
    """Masks secrets in every record a handler writes, whichever logger made it."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message, traceback and fields; never drop it."""
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: log what there is
            message = f"{record.msg!r} {record.args!r}"
        record.msg, record.args = mask_text(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = mask_text(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_text(record.stack_info)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            record.fields = {key: mask_value(key, value) for key, value in fields.items()}
        return True


class JsonLines(logging.Formatter):
    """One JSON object per record and line; a traceback is a field, never more lines."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON object: timestamp, level, logger, message, and context."""
        line: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request = current_request_id.get()
        if request is not None:
            line["request_id"] = request
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return orjson.dumps(line, default=str).decode()


def configure_logging(
    log_format: Literal["text", "json"] = "text", level: str = "INFO", stream: TextIO | None = None
) -> logging.Handler:
    """Send every record to stderr (or `stream`) through the masking filter, in the format
    asked for; the root logger's other handlers go."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(SecretMasking())
    handler.setFormatter(JsonLines() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # Warnings and uncaught exceptions go the same way: masked, and one line in JSON.
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    return handler


def _log_uncaught(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, trace)
        return
    logging.getLogger("tracepoint").critical("uncaught exception", exc_info=(kind, error, trace))
