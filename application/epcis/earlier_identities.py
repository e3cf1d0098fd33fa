"""Events captured again keep the identity they were stored under, where the one they
would get today differs: an upgrade never stores a second copy of a stored event."""

from application.epcis.captured_identities import CapturedIdentities
from infrastructure.event_store import EventStore
from projections.epcis.readers import ReadModels


class EarlierIdentities:
    """Finds the stored identities of events named or identified otherwise before."""

    def __init__(
        self, store: EventStore, read_models: ReadModels, identities: CapturedIdentities
    ) -> None:
        self._store = store
        self._read_models = read_models
        self._identities = identities

    def keep_names(
        self,
        earlier_names: dict[int, str],
        event_ids: list[str],
        identities: list[str],
        account: str | None,
    ) -> None:
        """Events stored under the hash they had before unbound standard prefixes were
        expanded (`earlier_event_hash`; position in `event_ids` → that hash) keep that name
        and its identity: captured again, they are already present, not stored anew."""
        own = {i: self._identities.of(n, account) for i, n in earlier_names.items()}
        wide = {i: self._identities.of(n) for i, n in earlier_names.items()}
        found = self._store.existing_ids(list({*own.values(), *wide.values()}))
        if not found:
            return
        owned = self._owned_by(found - set(own.values()), account) if account else set()
        for i, name in earlier_names.items():
            if own[i] in found or wide[i] in owned:
                event_ids[i] = name
                identities[i] = own[i] if own[i] in found else wide[i]

    def keep_identities(self, event_ids: list[str], identities: list[str], account: str) -> None:
        """Events the account captured before identity was per account keep the
        installation-wide identity they were stored under (multi-tenant upgrades)."""
        earlier = {self._identities.of(event_id) for event_id in event_ids}
        found = self._store.existing_ids(list(earlier))
        if not found:
            return
        for identity in self._owned_by(found, account):
            for i, event_id in enumerate(event_ids):
                if self._identities.of(event_id) == identity:
                    identities[i] = identity

    def _owned_by(self, identities: set[str], account: str) -> set[str]:
        """Those of the stored identities whose first record the account captured."""
        owners: dict[str, str | None] = {}
        owned: set[str] = set()
        for identity, records in self._store.events_of_many(sorted(identities)).items():
            capture_id = records[0].capture_id  # type: ignore[attr-defined]
            if capture_id not in owners:
                job = self._read_models.capture_job(capture_id)
                owners[capture_id] = job.account if job is not None else None
            if owners[capture_id] == account:
                owned.add(identity)
        return owned
