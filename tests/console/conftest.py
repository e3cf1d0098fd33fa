"""The console tests keep a screenshot of the page a failed browser test ended on."""

from collections.abc import Iterator

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[None]:
    """Note each phase's report on the test, for the `page` fixture to read."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report
