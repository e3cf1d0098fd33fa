"""How deep a document may nest objects and arrays: the encoder's own depth check agrees
with walking the document, at the limit and on either side of it."""

from typing import Any

import orjson
import pytest

from domain.epcis.storable import (
    ENCODER_NESTING,
    MAX_NESTING,
    encoded_within,
    nesting_violation,
)


def nested(levels: int, innermost: Any = 1) -> Any:
    """`levels` objects and arrays, alternating, around `innermost`."""
    value = innermost
    for level in range(levels):
        value = {"a": value} if level % 2 else [value]
    return value


def test_the_encoder_nests_as_deep_as_assumed_and_no_deeper() -> None:
    orjson.dumps(nested(ENCODER_NESTING))
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(nested(ENCODER_NESTING + 1))


@pytest.mark.parametrize("levels", [1, 10, MAX_NESTING - 1, MAX_NESTING])
def test_a_document_within_the_limit_is_encoded_whole(levels: int) -> None:
    document = nested(levels)
    encoded = encoded_within(document)
    assert encoded is not None
    assert orjson.dumps(document) in encoded
    assert nesting_violation(document) is None


@pytest.mark.parametrize("levels", [MAX_NESTING + 1, ENCODER_NESTING, ENCODER_NESTING + 5, 600])
def test_a_document_past_the_limit_is_not_encoded_and_the_walk_says_where(levels: int) -> None:
    document = nested(levels)
    assert encoded_within(document) is None
    assert nesting_violation(document) is not None


def test_a_document_the_encoder_refuses_for_another_reason_is_not_encoded() -> None:
    document = {"a": 2**70}
    assert encoded_within(document) is None
    assert nesting_violation(document) is None
