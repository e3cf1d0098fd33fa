"""Builds the EPCIS capability: capture, queries, named queries and subscriptions."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from application.access.accountability import AccessService
from application.access.event_scope import EventScopes
from application.epcis.analysis import EventAnalyser
from application.epcis.capture import CaptureService
from application.epcis.captured_identities import CapturedIdentities
from application.epcis.delivery import DeliverySettings, OutboundGuard
from application.epcis.epc_formats import EpcFormatService
from application.epcis.event_capture import EventCaptureService
from application.epcis.event_queries import EventQueryService
from application.epcis.lineage import LineageService
from application.epcis.master_data_queries import MasterDataQueryService
from application.epcis.named_queries import EpcisQueriesRules, NamedQueryService
from application.epcis.page_tokens import PageTokens
from application.epcis.query_prefixes import QueryPrefixes
from application.epcis.resources import ResourceService
from application.epcis.subscriptions import SubscriptionService
from application.epcis.xml_documents import XmlDocuments
from application.items.rules import CollectionRules
from application.items.service import ItemsService
from application.service.core import Core
from application.service.log_checked_cache import LogCheckedCache
from domain.access.outbound_targets import parse_allow_list
from infrastructure.epcis_schema import DocumentValidator
from infrastructure.http_push import HttpPush, resolve_host, resolve_host_now
from infrastructure.worker_processes import WorkerRecords
from projections.epcis.company_prefixes import CompanyPrefixReader
from projections.epcis.event_reader import EpcisEventReader
from projections.epcis.event_values import EventValueReader
from projections.epcis.lineage_reader import LineageReader
from projections.epcis.location_tree import LocationTree
from projections.epcis.prefix_changes import PrefixChanges
from projections.epcis.prefixes import PrefixReader
from projections.epcis.readers import ReadModels
from projections.epcis.vocabulary_reader import VocabularyReader

#: Prefix look-ups kept: one per set of prefixes and accounts queries and rules ask for.
PREFIX_CACHE_SIZE = 1024


@dataclass(frozen=True)
class EpcisCapability:
    """The EPCIS capability as the API and the other capabilities use it."""

    capture: CaptureService
    events: EventQueryService
    named_queries: NamedQueryService
    subscriptions: SubscriptionService
    analyser: EventAnalyser
    event_reader: EpcisEventReader
    #: Where outbound deliveries (subscriptions here, flows too) may go, and how they go.
    outbound_guard: OutboundGuard
    http: HttpPush
    rules: Mapping[str, CollectionRules]
    #: EPCIS XML: capture documents in, query documents out.
    xml: XmlDocuments
    #: The value collections (`/epcs`, `/bizSteps`, …), `GS1-EPC-Format`, and the
    #: prefixes captured documents bound (`GS1-Extensions`).
    resources: ResourceService
    epc_formats: EpcFormatService
    prefixes: QueryPrefixes
    event_capture: EventCaptureService
    #: The events each caller may read, its rule's CURIEs read as its queries' are.
    scopes: EventScopes
    #: What went into what (`GET /trace`).
    lineage: LineageService


def _bindings_cache(core: Core) -> LogCheckedCache:
    """What captured documents bound the prefixes of queries and rules to, kept in memory;
    a stretch of log this process's runner did not apply counts as a change."""
    changes = PrefixChanges()
    core.projections.add_listener(changes.applied)
    return LogCheckedCache(
        lambda after, upto: True,
        lambda: core.projections.reached,
        PREFIX_CACHE_SIZE,
        known=changes.known,
    )


def build_epcis(core: Core, items: ItemsService) -> EpcisCapability:
    """The EPCIS use cases over the event store and the query tables."""
    settings = core.settings
    read_models = ReadModels(core.database)
    analyser = EventAnalyser(
        settings.capture_workers, WorkerRecords(Path(settings.run_dir), "analysis-workers")
    )
    capture = CaptureService(
        core.store,
        DocumentValidator(),
        analyser,
        core.follower,
        core.projections,
        read_models,
        core.database,
        core.blocking,
        CapturedIdentities(core.store, core.instance),
        max_events=settings.capture_max_events,
        read_your_writes_timeout=settings.read_your_writes_timeout,
        metrics=core.metrics,
        stored=core.dictionaries.noticed,
    )
    event_reader = EpcisEventReader(core.database)
    tokens = PageTokens(core.secret.encode())
    prefixes = QueryPrefixes(PrefixReader(core.database), core.blocking, _bindings_cache(core))
    scopes = EventScopes(prefixes)
    events = EventQueryService(
        event_reader,
        tokens,
        core.blocking,
        per_page_default=settings.query_per_page_default,
        per_page_max=settings.query_per_page_max,
        locations=LocationTree(core.database),
        prefixes=prefixes,
    )
    master_data = MasterDataQueryService(VocabularyReader(core.database), core.blocking)
    named_queries = NamedQueryService(items, read_models, events, master_data, core.blocking)
    company_prefixes = CompanyPrefixReader(core.database)
    epc_formats = EpcFormatService(company_prefixes, core.blocking)
    resources = ResourceService(
        EventValueReader(core.database), event_reader, events, epc_formats, tokens, core.blocking
    )
    allowed = parse_allow_list(settings.outbound_allow_list)
    guard = OutboundGuard(allowed, resolve_host, resolve_host_now)
    http = HttpPush(allowed)
    xml = XmlDocuments(core.blocking)
    subscriptions = SubscriptionService(
        core.store,
        core.database,
        event_reader,
        named_queries,
        AccessService(core.access_reader, core.blocking),
        http,
        guard,
        core.follower,
        core.blocking,
        DeliverySettings(batch_size=settings.flow_batch_size),
        events.parsed,
        core.schema["epcis_subscription"],
        epc_formats,
        scopes=scopes,
        xml=xml,
        metrics=core.metrics,
    )
    core.background.every("subscriptions", settings.flow_poll_interval, subscriptions.deliver_due)
    return EpcisCapability(
        capture,
        events,
        named_queries,
        subscriptions,
        analyser,
        event_reader,
        guard,
        http,
        {"epcis_queries": EpcisQueriesRules()},
        xml,
        resources,
        epc_formats,
        prefixes,
        EventCaptureService(capture),
        scopes,
        LineageService(
            LineageReader(core.database),
            company_prefixes,
            scopes,
            core.blocking,
            max_depth=settings.trace_max_depth,
            max_nodes=settings.trace_max_nodes,
            link_base=core.link_base,
        ),
    )
