"""`/server/info` as Directus answers it: the project for everyone, the service's limits
for signed-in users, its version for administrators."""

from typing import Any

from domain.access.policies import Accountability
from domain.collections.item_query import parse_query
from infrastructure.settings import Settings

#: Tracepoint has no settings collection: the project is described by the service.
PROJECT_NAME = "Tracepoint"


def server_info(caller: Accountability, settings: Settings, version: str) -> dict[str, Any]:
    """What the caller may learn about the installation."""
    info: dict[str, Any] = {
        "project": {
            "project_name": PROJECT_NAME,
            "project_descriptor": None,
            "project_logo": None,
            "project_color": None,
            "default_appearance": "auto",
            "default_theme_light": None,
            "default_theme_dark": None,
            "theme_light_overrides": None,
            "theme_dark_overrides": None,
            "default_language": "en-US",
            "public_foreground": None,
            "public_background": None,
            "public_favicon": None,
            "public_note": None,
            "custom_css": None,
            "public_registration": settings.public_registration,
            "public_registration_verify_email": settings.public_registration_verify_email,
        }
    }
    if caller.user is None:
        return info
    # Only sign-in is rate limited (per client address), not requests in general.
    info["rateLimit"] = False
    info["rateLimitGlobal"] = False
    # A list's default page size is the query language's; `limit=-1` reads everything.
    info["queryLimit"] = {"default": parse_query(()).limit, "max": -1}
    info["websocket"] = False
    if caller.admin:
        info["version"] = version
    return info
