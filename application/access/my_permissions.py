"""What the caller may do, as `/permissions/me` reports it (spec §4.4)."""

from typing import Any

from domain.access.collections import ACTIONS
from domain.access.policies import Accountability


def permissions_summary(caller: Accountability, collections: list[str]) -> dict[str, Any]:
    """Per collection and action: `access` none, partial or full, and the fields and
    presets that apply. Admins have full access to every collection; others see the
    collections on which they hold at least one permission."""
    names = collections if caller.admin else caller.collections()
    return {name: {action: _entry(caller, name, action) for action in ACTIONS} for name in names}


def _entry(caller: Accountability, collection: str, action: str) -> dict[str, Any]:
    if caller.admin:
        access: Any = None
        level, fields, presets = "full", ["*"], {}
    else:
        access = caller.access(collection, action)
        if access is None:
            return {"access": "none", "full_access": False}
        level = "full" if access.full else "partial"
        fields, presets = list(access.fields), access.presets
    entry: dict[str, Any] = {"access": level, "full_access": level == "full"}
    if action in ("create", "read", "update"):
        entry["fields"] = fields
    if action in ("create", "update"):
        entry["presets"] = presets
    return entry
