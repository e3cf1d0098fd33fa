"""Builds the flows capability: outbound flows, running them on request, Publish Lot."""

from collections.abc import Mapping
from dataclasses import dataclass

from application.access.accountability import AccessService
from application.epcis.delivery import DeliverySettings
from application.epcis.wiring import EpcisCapability
from application.flows.control import FlowControl
from application.flows.outbound import OutboundFlows
from application.flows.publish_lot import LotPublisher
from application.flows.rules import EpcisConnectionRules, OutboundFlowRules
from application.items.rules import CollectionRules
from application.items.service import ItemsService
from application.service.core import Core


@dataclass(frozen=True)
class FlowsCapability:
    """The flows capability as the API, the tests and the timer use it."""

    outbound: OutboundFlows
    control: FlowControl
    lots: LotPublisher
    rules: Mapping[str, CollectionRules]


def build_flows(core: Core, items: ItemsService, epcis: EpcisCapability) -> FlowsCapability:
    """Flows over EPCIS's event reader and delivery, with their timer registered."""
    settings = core.settings
    outbound = OutboundFlows(
        core.store,
        core.database,
        epcis.event_reader,
        AccessService(core.access_reader, core.blocking),
        epcis.http,
        epcis.outbound_guard,
        core.blocking,
        DeliverySettings(batch_size=settings.flow_batch_size),
        epcis.events.parsed,
        scopes=epcis.scopes,
        metrics=core.metrics,
    )
    core.background.every("flows", settings.flow_poll_interval, outbound.run_due)

    async def settle() -> None:
        await core.blocking.run(core.projections.catch_up)

    def wake() -> None:
        # A flow switched on or moved back runs at once, not at the end of its interval.
        outbound.hurry()
        core.background.wake("flows")

    rules: dict[str, CollectionRules] = {
        "epcis_connection": EpcisConnectionRules(epcis.outbound_guard),
        "epcis_outbound_flow": OutboundFlowRules(
            epcis.event_reader.position_before_record_time, wake
        ),
    }
    return FlowsCapability(
        outbound, FlowControl(items, outbound, settle), LotPublisher(items, epcis.capture), rules
    )
