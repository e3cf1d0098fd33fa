"""Where the service may send requests (webhooks, partner connections): never to its own
network unless the operator allows it, so nobody can turn the service on internal
addresses."""

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class AllowList:
    """What TRACEPOINT_OUTBOUND_ALLOW_LIST lets through: URL prefixes, host names and
    CIDR ranges."""

    prefixes: tuple[str, ...] = ()
    hosts: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()


def parse_allow_list(text: str) -> AllowList:
    """The allow list from its comma-separated entries; ValueError for a bad entry."""
    prefixes, hosts, networks = [], set(), []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        if "://" in entry:
            prefixes.append(entry)
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            hosts.add(entry.lower())
    return AllowList(tuple(prefixes), frozenset(hosts), tuple(networks))


def _internal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


def refusal(url: str, addresses: Sequence[str], allowed: AllowList) -> str | None:
    """Why the service must not send to `url`, whose host resolves to `addresses`; None
    when it may."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http(s) URL with a host"
    if any(url.startswith(prefix) for prefix in allowed.prefixes):
        return None
    host = parts.hostname.lower()
    if host in allowed.hosts:
        return None
    if not addresses:
        return f"its host {host} cannot be resolved"
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if any(address in network for network in allowed.networks):
            continue
        if _internal(address):
            return (
                f"its host {host} is an internal address ({address}); "
                "TRACEPOINT_OUTBOUND_ALLOW_LIST can let it through"
            )
    return None
