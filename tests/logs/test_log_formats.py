"""TRACEPOINT_LOG_FORMAT and TRACEPOINT_LOG_LEVEL: text by default, one JSON object per line
on request, exceptions included, and secrets masked in both."""

import io
import logging
import sys

import orjson
import pytest

from api.logs.formats import configure_logging
from infrastructure.settings import Settings
from tests.logs.conftest import lines


def test_text_is_the_default_format(output: io.StringIO) -> None:
    configure_logging(stream=output)
    logging.getLogger("tracepoint.test").info("hello %s", "world")
    [line] = lines(output)
    assert line.endswith(" INFO tracepoint.test hello world")


def test_json_gives_timestamp_level_logger_and_message(output: io.StringIO) -> None:
    configure_logging("json", stream=output)
    logging.getLogger("tracepoint.test").warning("hello %s", "world")
    [line] = lines(output)
    record = orjson.loads(line)
    assert record["level"] == "warning"
    assert record["logger"] == "tracepoint.test"
    assert record["message"] == "hello world"
    assert record["timestamp"].endswith("+00:00")


def test_an_exception_in_json_is_one_object_with_the_traceback_in_a_field(
    output: io.StringIO,
) -> None:
    configure_logging("json", stream=output)
    try:
        raise ValueError("broken")
    except ValueError:
        logging.getLogger("tracepoint.test").exception("it failed")
    [line] = lines(output)
    record = orjson.loads(line)
    assert record["message"] == "it failed"
    assert "Traceback" in record["exception"]
    assert "ValueError: broken" in record["exception"]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_secret_in_a_message_or_an_exception_is_masked(
    output: io.StringIO, log_format: str
) -> None:
    configure_logging(log_format, stream=output)  # type: ignore[arg-type]
    log = logging.getLogger("tracepoint.test")
    log.info("login %s", {"email": "a@example.com", "password": "pw-in-message"})
    try:
        raise RuntimeError("refused access_token=token-in-exception")
    except RuntimeError:
        log.exception("request failed")
    text = output.getvalue()
    assert "pw-in-message" not in text
    assert "token-in-exception" not in text
    assert "a@example.com" in text


def test_records_below_the_level_are_left_out(output: io.StringIO) -> None:
    configure_logging("json", "WARNING", stream=output)
    log = logging.getLogger("tracepoint.test")
    log.info("chatter")
    log.warning("worth a look")
    assert [orjson.loads(line)["message"] for line in lines(output)] == ["worth a look"]


def test_the_level_setting_accepts_any_case() -> None:
    assert Settings(log_level="warning").log_level == "WARNING"
    with pytest.raises(ValueError, match="DEBUG, INFO"):
        Settings(log_level="loud")


def test_an_uncaught_exception_is_logged_as_one_masked_record(output: io.StringIO) -> None:
    configure_logging("json", stream=output)
    try:
        raise RuntimeError("cannot reach postgresql://app:db-password@db/tp")
    except RuntimeError as error:
        sys.excepthook(type(error), error, error.__traceback__)
    [line] = lines(output)
    record = orjson.loads(line)
    assert record["level"] == "critical"
    assert "RuntimeError" in record["exception"]
    assert "db-password" not in line
