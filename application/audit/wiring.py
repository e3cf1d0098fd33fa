"""Builds the audit capability: the tree's store, the signing key, heads on a timer."""

from dataclasses import dataclass

from application.audit.proofs import AuditHeads, AuditProofs
from application.audit.upkeep import TreeUpkeep
from application.audit.verification import LogVerification
from application.epcis.wiring import EpcisCapability
from application.service.core import Core
from application.service.errors import InvalidQuery
from domain.access.policies import Accountability
from domain.epcis.event_query import QueryParameterError
from infrastructure.audit.signing_key import SigningKey
from infrastructure.audit.tree_store import TreeStore
from projections.runner import SCHEMA_LOCK

#: Where the generated signing key is kept (tracepoint_instance), like the secret.
SIGNING_KEY = "audit_signing_key"


@dataclass(frozen=True)
class AuditCapability:
    """The audit capability as the API, the CLI and the tests use it."""

    heads: AuditHeads
    proofs: AuditProofs
    verification: LogVerification
    upkeep: TreeUpkeep


def signing_key(core: Core) -> SigningKey:
    """The key of the setting, else the one generated on the first start and kept."""
    given = core.settings.audit_signing_key
    if given is not None:
        return SigningKey.from_pem(given.get_secret_value())
    return SigningKey.from_pem(
        core.instance.get_or_create(SIGNING_KEY, SigningKey.generate().pem())
    )


def build_audit(core: Core, epcis: EpcisCapability) -> AuditCapability:
    """Heads signed at the settings' cadence; proofs of events by the EPCIS reader."""
    with core.database.exclusive(SCHEMA_LOCK):
        tree = TreeStore(core.database)
    heads = AuditHeads(tree, signing_key(core), core.blocking, core.clock)
    if core.settings.audit_tree:
        core.background.every(
            "audit-heads", core.settings.audit_head_interval, heads.sign_when_grown
        )

    async def locate(event_id: str, caller: Accountability) -> int | None:
        scope = await epcis.scopes.event_scope(caller, "read")
        try:
            return await epcis.events.position_of(event_id, scope)
        except QueryParameterError as exc:
            raise InvalidQuery(str(exc).replace("EQ_eventID", "eventID")) from exc

    proofs = AuditProofs(heads, core.blocking, locate, core.store.dictionary_position)
    verification = LogVerification(core.store, core.database, tree, heads.key.public)
    upkeep = TreeUpkeep(core.store, core.database, tree)
    return AuditCapability(heads, proofs, verification, upkeep)
