"""`GS1-EPC-Format` on answers: EPCs as Digital Link or EPC URN, company prefixes from
the organisations' master data."""

from collections.abc import Sequence

from application.service.blocking import BlockingRunner
from domain.epcis.epc_format import (
    Converter,
    EpcFormat,
    epc_converter,
    event_texts_in_format,
)
from domain.gs1.link_to_urn import CompanyPrefixes
from projections.epcis.company_prefixes import CompanyPrefixReader

#: Pages of at most this many events are converted on the event loop: a few
#: microseconds an event, where a trip to a worker thread costs a tenth of a millisecond.
CONVERTED_IN_PLACE = 32


class EpcFormatService:
    """Converts the EPCs of answers into the form a client asks for."""

    def __init__(self, prefixes: CompanyPrefixReader, blocking: BlockingRunner) -> None:
        self._prefixes = prefixes
        self._blocking = blocking

    async def converter(self, epc_format: EpcFormat) -> Converter | None:
        """How EPCs are converted for `epc_format`; None when they stay as captured."""
        prefixes = CompanyPrefixes(())
        if epc_format is EpcFormat.EPC_URN:
            prefixes = await self._blocking.run(self._prefixes.prefixes)
        return epc_converter(epc_format, prefixes)

    async def events(self, events: list[str], epc_format: EpcFormat) -> list[str]:
        """Events (JSON texts) with their EPCs in `epc_format`; the same texts when the
        format keeps them as captured."""
        convert = await self.converter(epc_format)
        if convert is None or not events:
            return events
        if len(events) <= CONVERTED_IN_PLACE:
            return event_texts_in_format(events, convert)
        return await self._blocking.run(event_texts_in_format, events, convert)

    async def values(self, values: Sequence[str], epc_format: EpcFormat) -> list[str]:
        """EPCs (or location ids) in `epc_format`."""
        convert = await self.converter(epc_format)
        return [convert(value) for value in values] if convert else list(values)
