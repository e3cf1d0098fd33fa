"""The index terms of an event hold text only: a value of another JSON type is not
matched on, and never reaches the query tables' text columns."""

from typing import Any

import pytest

from domain.epcis.index_terms import event_terms
from tests.epcis.documents import object_event


@pytest.mark.parametrize("value", [["ADD"], {"a": 1}, 5, True])
def test_an_action_that_is_not_text_is_not_indexed(value: Any) -> None:
    assert event_terms(object_event(action=value), {}).action is None


@pytest.mark.parametrize("value", [["urn:x:1"], {"a": 1}, 5])
def test_a_transformation_id_that_is_not_text_is_not_indexed(value: Any) -> None:
    assert event_terms(object_event(transformationID=value), {}).transformation_id is None


def test_text_values_are_indexed() -> None:
    terms = event_terms(object_event(action="ADD", transformationID="urn:x:1"), {})
    assert (terms.action, terms.transformation_id) == ("ADD", "urn:x:1")
