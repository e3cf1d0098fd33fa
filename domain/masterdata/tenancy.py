"""Accounts of a multi-tenant installation (spec §1 rule 3): every user belongs to one,
and the records of the tenant collections carry the account they belong to."""

import dataclasses
from collections.abc import Sequence

from domain.collections.schema import Collection, Field, FieldType

#: The field that names an item's account.
ACCOUNT_FIELD = "account"

ACCOUNT = Collection(
    name="account",
    primary_key="id",
    fields=(
        Field("id", FieldType.UUID),
        Field("name", FieldType.STRING, required=True),
        Field("date_created", FieldType.DATETIME, readonly=True),
        Field("user_created", FieldType.UUID, relation="users", readonly=True),
        Field("date_updated", FieldType.DATETIME, readonly=True),
        Field("user_updated", FieldType.UUID, relation="users", readonly=True),
    ),
)


def with_accounts(
    collections: Sequence[Collection], scoped: frozenset[str]
) -> tuple[Collection, ...]:
    """The collections, those named in `scoped` with an `account` relation added."""
    field = Field(ACCOUNT_FIELD, FieldType.UUID, relation=ACCOUNT.name)
    return tuple(
        dataclasses.replace(c, fields=(*c.fields, field)) if c.name in scoped else c
        for c in collections
    )
