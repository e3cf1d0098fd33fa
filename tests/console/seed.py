"""The events the console's browser tests look at, captured once a service."""

from tests.console.browser import Served
from tests.epcis.documents import aggregation_event, document, object_event

PALLET = "urn:epc:id:sscc:4012345.0000000001"
PACKED = [f"urn:epc:id:sgtin:4012345.011111.{serial}" for serial in (1001, 1002, 1003)]
#: The event that is later declared in error.
DECLARED_ID = "urn:uuid:6a3c0d5e-9d3b-4f43-9e4b-2f1c1c0e0a01"
COMMISSIONED = 25


def seed(served: Served) -> None:
    """The events the tests look at: commissioning, packing on a pallet, a declared error."""
    commissioning = [
        object_event(
            action="ADD",
            bizStep="commissioning",
            disposition="active",
            eventTime=f"2024-03-01T08:{minute:02d}:00.000Z",
            eventTimeZoneOffset="+00:00",
            epcList=[f"urn:epc:id:sgtin:4012345.022222.{minute + 1}"],
        )
        for minute in range(COMMISSIONED)
    ]
    shipped = object_event(
        eventID=DECLARED_ID,
        epcList=PACKED[:1],
        eventTime="2024-03-01T09:00:00.000Z",
        eventTimeZoneOffset="+00:00",
    )
    packing = aggregation_event(
        PALLET,
        PACKED,
        bizLocation={"id": "urn:epc:id:sgln:4012345.00002.0"},
        eventTime="2024-03-01T11:00:00.000Z",
    )
    status, body = served.api(
        "POST", "/v2/epcis/capture", document(*commissioning, shipped, packing)
    )
    assert status == 201, body
    declared = {
        **shipped,
        "errorDeclaration": {
            "declarationTime": "2024-03-02T10:00:00.000Z",
            "reason": "incorrect_data",
        },
    }
    status, body = served.api("POST", "/v2/epcis/capture", document(declared))
    assert status == 201, body
