"""Primary keys as a request gives them, in their key field's type."""

import uuid
from collections.abc import Sequence
from typing import Any

from application.service.errors import Forbidden
from domain.collections.schema import Collection, FieldType

#: Integer keys are 64-bit: a larger one names nothing that can exist.
_INT64 = range(-(2**63), 2**63).__contains__


def primary_keys(spec: Collection, keys: Sequence[Any]) -> list[Any]:
    """Primary keys in the key field's type; a malformed one is Forbidden, as Directus
    answers for keys that cannot exist."""
    result = []
    for key in keys:
        if spec.key.type is FieldType.INTEGER:
            try:
                value: Any = int(key)
            except (TypeError, ValueError):
                raise Forbidden() from None
            if isinstance(key, bool) or str(value) != str(key).strip() or not _INT64(value):
                raise Forbidden()
        elif spec.key.type is FieldType.UUID:
            try:
                value = str(uuid.UUID(str(key)))
            except ValueError:
                raise Forbidden() from None
        else:
            if not isinstance(key, str | int) or isinstance(key, bool):
                raise Forbidden()
            value = str(key)
        result.append(value)
    return result
