"""Where the service may send requests (webhooks, partner connections): never to its own
network unless the operator allows it, so nobody can turn the service on internal
addresses."""

import ipaddress
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class AllowList:
    """What TRACEPOINT_OUTBOUND_ALLOW_LIST lets through: URL prefixes, host names and
    CIDR ranges."""

    prefixes: tuple[str, ...] = ()
    hosts: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()

    def allows_host(self, host: str) -> bool:
        """Whether a host may resolve to anything when connecting: a named host, or the
        host of a URL prefix (whose URLs `refusal` has checked)."""
        host = host.lower()
        return host in self.hosts or any(
            (_parts(prefix) or ("", "", None, ""))[1] == host for prefix in self.prefixes
        )

    def allows_address(self, address: Address) -> bool:
        """Whether an address is in an allowed range."""
        return any(address in network for network in self.networks)


def parse_allow_list(text: str) -> AllowList:
    """The allow list from its comma-separated entries; ValueError for a bad entry."""
    prefixes, hosts, networks = [], set(), []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        if "://" in entry:
            if _parts(entry) is None:
                raise ValueError(f"{entry!r} is not an http(s) URL prefix")
            prefixes.append(entry)
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            hosts.add(entry.lower())
    return AllowList(tuple(prefixes), frozenset(hosts), tuple(networks))


def _parts(url: str) -> tuple[str, str, int | None, str] | None:
    """Scheme, host, port and normalised path of an http(s) URL; None if it is not one
    (or carries credentials, which only serve to disguise a host)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    path = posixpath.normpath(parts.path or "/")
    return parts.scheme, parts.hostname.lower(), port, path


def _under(url: str, prefix: str) -> bool:
    """Whether `url` lies below an allowed URL prefix: same scheme, host and port, and a
    path inside the prefix's (after `..` is resolved)."""
    here, there = _parts(url), _parts(prefix)
    if here is None or there is None or here[:3] != there[:3]:
        return False
    base = there[3].rstrip("/")
    return here[3] == base or here[3].startswith(base + "/") or base == ""


def internal(address: Address) -> bool:
    """Whether an address is not on the public internet (loopback, private, shared,
    link-local, reserved, multicast, unspecified…)."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    return not address.is_global or address.is_multicast


def refusal(url: str, addresses: Sequence[str], allowed: AllowList) -> str | None:
    """Why the service must not send to `url`, whose host resolves to `addresses`; None
    when it may. A host that does not resolve (yet) is not refused here: sending to it
    fails and is tried again, and the address it resolves to then is checked then."""
    parts = _parts(url)
    if parts is None:
        return "must be an http(s) URL with a host (and no user name or password)"
    if any(_under(url, prefix) for prefix in allowed.prefixes):
        return None
    host = parts[1]
    if host in allowed.hosts:
        return None
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if internal(address) and not allowed.allows_address(address):
            return (
                f"its host {host} is an internal address ({address}); "
                "TRACEPOINT_OUTBOUND_ALLOW_LIST can let it through"
            )
    return None
