"""The shared fixtures' own helpers."""

import pytest

from tests.conftest import is_true


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "True", "yes", "Yes", "on", "ON", " true "])
def test_true_values_of_an_environment_variable(value: str) -> None:
    assert is_true(value)


@pytest.mark.parametrize("value", [None, "", "0", "false", "no", "off", "2", "truthy", "y"])
def test_other_values_are_not_true(value: str | None) -> None:
    assert not is_true(value)
