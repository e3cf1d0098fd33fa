"""The list of SimpleEventQuery parameters with fixed names (the OpenAPI document's) is
the parser's: each one named is read, none is refused as unknown."""

import pytest

from domain.epcis.event_query import named_parameters, parse_event_query

#: A value of the shape each kind of parameter takes.
_SAMPLES = {
    "eventType": "ObjectEvent",
    "EQ_action": "ADD",
    "orderBy": "eventTime",
    "orderDirection": "ASC",
    "EQ_booleanValue": "true",
    "EQ_type": "gs1:Temperature",
    "EQ_hexBinaryValue": "0A",
}


def _sample(name: str) -> str:
    if name.startswith("EXISTS_"):
        return "true"
    if name in _SAMPLES:
        return _SAMPLES[name]
    if "Time" in name:
        return "2024-01-01T00:00:00Z"
    if name.endswith(("quantity", "Count", "Limit")):
        return "5"
    return "urn:epc:id:sgtin:0614141.107346.2018"


@pytest.mark.parametrize("name", sorted(named_parameters()))
def test_every_named_parameter_is_read_by_the_parser(name: str) -> None:
    params = {name: [_sample(name)]}
    if name == "eventCountLimit":
        params["orderBy"] = ["eventTime"]
    parse_event_query(params)


def test_an_unnamed_parameter_is_refused() -> None:
    with pytest.raises(ValueError, match="not a known EPCIS query parameter"):
        parse_event_query({"EQ_nothing": ["x"]})
