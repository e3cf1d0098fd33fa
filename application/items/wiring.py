"""Builds the items capability: the collection service, files and master-data rules."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from application.items.discovery import SchemaDiscovery
from application.items.files import FilesRules, FilesService
from application.items.master_data_rules import (
    LocationRules,
    ShipmentNoticeRules,
    StandardIdentifiers,
    identifier_schemes,
)
from application.items.rules import BulkItems, CollectionRules
from application.items.service import ItemsService
from application.items.unit_of_work import Guard
from application.service.core import Core
from infrastructure.file_storage import FileStorage
from projections.items.reader import ItemReader


@dataclass(frozen=True)
class ItemsCapability:
    """The items capability as the API and the other capabilities use it."""

    service: ItemsService
    files: FilesService
    #: What `/collections`, `/fields` and `/relations` answer.
    discovery: SchemaDiscovery
    #: The rules of the collections this capability owns.
    rules: Mapping[str, CollectionRules]


def build_items(
    core: Core,
    rules: Mapping[str, CollectionRules],
    bulk: Mapping[str, BulkItems],
    guard: Guard,
) -> ItemsCapability:
    """The items service over every collection. `rules` and `bulk` are the registries that
    each capability fills with what its collections add; they are read at each call."""
    settings = core.settings
    service = ItemsService(
        core.store,
        ItemReader(core.database, core.schema),
        core.schema,
        rules,
        core.follower,
        core.blocking,
        read_your_writes_timeout=settings.read_your_writes_timeout,
        guard=guard,
        bulk=bulk,
    )
    files_rules = FilesRules()
    files = FilesService(
        service,
        FileStorage(Path(settings.uploads_dir)),
        files_rules,
        core.blocking,
        max_upload_bytes=settings.max_upload_bytes,
    )
    schemes = identifier_schemes(settings.standard_identifiers)
    own: dict[str, CollectionRules] = {
        "files": files_rules,
        "shipment_notice": ShipmentNoticeRules(),
    }
    for name, scheme in schemes.items():
        kind = LocationRules if name == "location" else StandardIdentifiers
        own[name] = kind(name, scheme, core.link_base)
    return ItemsCapability(service, files, SchemaDiscovery(core.schema), own)
