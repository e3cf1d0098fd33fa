"""Every collection of the platform API, as this installation has them: the system
collections, the item collections and, with several tenants, their accounts."""

from domain.access.collections import SYSTEM_COLLECTIONS
from domain.collections.schema import Collection, Schema
from domain.masterdata.catalogue import MASTER_DATA_COLLECTIONS
from domain.masterdata.references import REFERENCE_COLLECTIONS
from domain.masterdata.tenancy import ACCOUNT, with_accounts
from domain.records.history import HISTORY_COLLECTIONS

#: The collections whose items belong to an account in a multi-tenant installation:
#: users, files and every item collection (spec §1 rule 3 marks the master data; the
#: rest hold an account's data just as much), but the reference lists, which every
#: account shares.
TENANT_COLLECTIONS = frozenset(
    {"users", "files", *(c.name for c in MASTER_DATA_COLLECTIONS)}
    - {c.name for c in REFERENCE_COLLECTIONS}
)


def record_collections(multi_tenant: bool) -> tuple[Collection, ...]:
    """The item collections, each with a table of its own: the records', and those other
    projections keep (generated codes, scans, reference lists)."""
    collections = SYSTEM_COLLECTIONS + MASTER_DATA_COLLECTIONS
    if not multi_tenant:
        return collections
    return with_accounts((*collections, ACCOUNT), TENANT_COLLECTIONS)


def build_schema(multi_tenant: bool) -> Schema:
    """The records' collections and their history (`activity`, `revisions`)."""
    return Schema(record_collections(multi_tenant) + HISTORY_COLLECTIONS)


#: The names Directus clients know the system collections by (`directus_users`): the
#: schema discovery uses them, while the routes and permission rows keep ours (`/users`).
DIRECTUS_NAMES = {c.name: f"directus_{c.name}" for c in (*SYSTEM_COLLECTIONS, *HISTORY_COLLECTIONS)}


def directus_name(name: str) -> str:
    """The name Directus clients know a collection by."""
    return DIRECTUS_NAMES.get(name, name)
