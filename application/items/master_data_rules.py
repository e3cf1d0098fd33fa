"""What the master-data collections add to plain storage: checked GS1 keys, ids and
Digital Links derived from them (spec §1 rule 6), valid time zones, ship-notice URNs."""

import uuid
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote

from application.items.rules import CollectionRules, Item, Related
from application.service.errors import InvalidPayload
from domain.gs1.identifiers import (
    IdentifierError,
    check_company_prefix,
    check_gln,
    check_gln_extension,
    check_lot_number,
    digital_link,
    location_path,
    lot_path,
    normalise_gtin,
    organisation_path,
    product_path,
)

#: Checks a key field's value and answers it as stored.
Check = Callable[[str], str]
#: The standard path of an item from its values, or None when a key it needs is unknown.
PathOf = Callable[[Item, Related], str | None]


@dataclass(frozen=True)
class IdentifierScheme:
    """How one collection's standard identifier is made: the fields it checks, the path
    it derives and what that path needs."""

    checks: dict[str, Check]
    path_of: PathOf
    needs: str
    #: Whether items without their own `use_gs1_identifiers` get standard identifiers.
    on_by_default: bool = False


class StandardIdentifiers(CollectionRules):
    """GS1 keys are checked whenever they are given; where standard identifiers are on,
    `id` and `digital_link` follow from them and the id never changes afterwards."""

    def __init__(self, collection: str, scheme: IdentifierScheme, link_base: str) -> None:
        self._collection = collection
        self._scheme = scheme
        self._base = link_base

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Check the keys; set `id` and `digital_link` when standard identifiers are on."""
        values = dict(values)
        for name, check in self._scheme.checks.items():
            if isinstance(values.get(name), str):
                values[name] = _checked(check, values[name])
        merged = {**(current or {}), **values}
        flag = merged.get("use_gs1_identifiers")
        if not (flag if flag is not None else self._scheme.on_by_default):
            return values
        path = _path(self._scheme.path_of, merged, related)
        if path is None:
            if flag:
                raise InvalidPayload(
                    f'"use_gs1_identifiers" needs {self._scheme.needs} to derive the id'
                )
            return values
        if current is None:
            given = values.get("id")
            if given is not None and given != path:
                raise InvalidPayload(
                    f'"id" is derived from {self._scheme.needs}: expected "{path}", got "{given}"'
                )
        elif current.get("id") != path:
            raise InvalidPayload(
                f'This change would give the {self._collection} the id "{path}", but an id'
                f" never changes: create a new {self._collection} instead"
            )
        return {**values, "id": path, "digital_link": digital_link(self._base, path)}


def _checked(check: Check, value: str) -> str:
    try:
        return check(value)
    except IdentifierError as exc:
        raise InvalidPayload(str(exc)) from exc


def _path(path_of: PathOf, merged: Item, related: Related) -> str | None:
    try:
        return path_of(merged, related)
    except IdentifierError as exc:
        raise InvalidPayload(str(exc)) from exc


def _gtin(value: str) -> str:
    normalise_gtin(value)
    return value.strip()


def _location_path(item: Item, related: Related) -> str | None:
    gln = item.get("gln")
    return location_path(gln, item.get("gln_extension")) if gln else None


def _organisation_path(item: Item, related: Related) -> str | None:
    pgln = item.get("pgln")
    return organisation_path(pgln) if pgln else None


def _product_path(item: Item, related: Related) -> str | None:
    gtin = item.get("gtin")
    return product_path(gtin) if gtin else None


def _lot_path(item: Item, related: Related) -> str | None:
    product = related("product", item["product"]) if item.get("product") else None
    gtin = (product or {}).get("gtin")
    lot_number = item.get("lot_number")
    return lot_path(gtin, lot_number) if gtin and lot_number else None


def identifier_schemes(products_and_lots_by_default: bool) -> dict[str, IdentifierScheme]:
    """The standard identifier of each master-data collection (spec §1 rule 6)."""
    return {
        "location": IdentifierScheme(
            {"gln": check_gln, "gln_extension": check_gln_extension},
            _location_path,
            '"gln" (and "gln_extension")',
        ),
        "organisation": IdentifierScheme(
            {
                "pgln": lambda v: check_gln(v, "pgln"),
                "organisation_company_prefix": check_company_prefix,
            },
            _organisation_path,
            '"pgln"',
        ),
        "product": IdentifierScheme(
            {"gtin": _gtin}, _product_path, '"gtin"', products_and_lots_by_default
        ),
        "lot": IdentifierScheme(
            {"lot_number": check_lot_number},
            _lot_path,
            'a "product" with a GTIN and a "lot_number"',
            products_and_lots_by_default,
        ),
    }


class LocationRules(StandardIdentifiers):
    """Locations: standard identifiers, and a time zone the tz database knows."""

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Check the time zone, then the identifiers."""
        zone = values.get("timezone")
        if zone is not None and zone not in _time_zones():
            raise InvalidPayload(f'"timezone" "{zone}" is not an IANA time zone (Europe/Paris)')
        return super().derive(values, current, related)


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


class ShipmentNoticeRules(CollectionRules):
    """A new ship notice gets a URN for EPCIS messages unless it brings one: the CBV
    business-transaction form from its issuer's PGLN and number, else a UUID URN."""

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Name a new notice."""
        if current is not None or values.get("urn") is not None:
            return values
        key = values.get("id") or str(uuid.uuid4())
        issuer: dict[str, Any] = {}
        if values.get("ship_notice_issuer"):
            issuer = related("organisation", values["ship_notice_issuer"]) or {}
        number = values.get("ship_notice_number")
        if issuer.get("pgln") and number:
            urn = f"urn:epcglobal:cbv:bt:{issuer['pgln']}:{quote(str(number), safe='')}"
        else:
            urn = f"urn:uuid:{key}"
        return {**values, "id": key, "urn": urn}
