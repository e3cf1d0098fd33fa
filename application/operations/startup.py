"""What a start checks before it builds anything: the settings, the listening port and
the database. Each failure is one line naming the setting to fix."""

import socket

from pydantic import ValidationError

from infrastructure.database_check import DatabaseUnreachable, check_database
from infrastructure.database_url import masked_url
from infrastructure.listeners import PortInUse, bind_listeners

# Re-exported: the commands name the settings they load without reaching infrastructure.
from infrastructure.settings import Settings as Settings


class StartupFailed(Exception):
    """A start that cannot go on; the message is one line for the operator."""


def load_settings() -> Settings:
    """The settings of the environment; StartupFailed names the first bad one."""
    try:
        return Settings()
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]).upper() if error["loc"] else "a setting"
        if not name.startswith("TRACEPOINT_") and name != "A SETTING":
            name = f"TRACEPOINT_{name}"
        raise StartupFailed(f"{name} is invalid: {error['msg']}") from exc


def open_listeners(settings: Settings) -> list[socket.socket]:
    """The service's bound sockets, so that nothing is created when the port is taken."""
    try:
        return bind_listeners(settings.host, settings.port)
    except PortInUse as exc:
        raise StartupFailed(str(exc)) from exc


def check_reachable(settings: Settings) -> None:
    """Fail unless the database answers (and, for SQLite, can be written)."""
    try:
        check_database(settings.database_url)
    except DatabaseUnreachable as exc:
        raise StartupFailed(str(exc)) from exc


def shown_database_url(settings: Settings) -> str:
    """The database URL with its password masked."""
    return masked_url(settings.database_url)
