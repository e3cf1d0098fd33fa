"""The process's logging put back as a block found it, for tests that set it up as the
service does (`configure_logging`: a command run in the test process, a log test)."""

import contextlib
import logging
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def logging_kept() -> Iterator[None]:
    """Put back the root logger's handlers and level, the hook of uncaught exceptions and
    the routing of warnings as they were before the block: `configure_logging` puts the
    root logger on a stream that may be closed once the block ends (a command's runner,
    a test's), and each later record would print '--- Logging error ---'."""
    root = logging.getLogger()
    handlers, level, excepthook = root.handlers[:], root.level, sys.excepthook
    warnings_captured = getattr(logging, "_warnings_showwarning", None) is not None
    try:
        yield
    finally:
        sys.excepthook = excepthook
        logging.captureWarnings(warnings_captured)
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)
