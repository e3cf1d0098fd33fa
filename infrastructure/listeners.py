"""Binding the service's listening sockets before anything else starts, so that a busy
port stops a start before it has created or printed anything."""

import errno
import socket


class PortInUse(Exception):
    """The address and port the service should listen on are taken (or not allowed)."""


def bind_listeners(host: str, port: int) -> list[socket.socket]:
    """One bound socket per address `host` resolves to (a name may give IPv4 and IPv6).

    Raises PortInUse with a one-line explanation; no socket stays open then.
    """
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise PortInUse(
            f"cannot listen on {host}:{port}: the host is unknown ({exc.strerror}); "
            "set TRACEPOINT_HOST to an address of this machine"
        ) from exc
    sockets: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _name, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            # As asyncio does: a restart may reuse a port whose old connections linger in
            # TIME_WAIT, and an IPv6 socket leaves IPv4 to its own socket.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            # Listening at once holds the port: two sockets with SO_REUSEADDR may both bind
            # it until one listens. Early callers wait in the backlog until the service runs.
            sock.listen(128)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise PortInUse(_explain(host, port, exc)) from exc
    return sockets


def _explain(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} is in use on {host or '*'}: stop what listens there or set "
            "TRACEPOINT_PORT to a free port"
        )
    if exc.errno == errno.EACCES:
        return (
            f"not allowed to listen on port {port}: ports below 1024 need privileges; "
            "set TRACEPOINT_PORT to 1024 or above"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"{host} is not an address of this machine: set TRACEPOINT_HOST "
            "(127.0.0.1 for this machine only, 0.0.0.0 for every interface)"
        )
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
