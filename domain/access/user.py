"""A user of the service, as far as authentication needs it."""

from eventsourcing.domain import event

from domain.aggregate import Aggregate


class User(Aggregate):
    """A person or system that signs in with a password or a static token.

    Secrets arrive already hashed: the domain never sees a password or token in clear.
    """

    @staticmethod
    def create_id(user_id: str) -> str:
        """The store identity of the user with this id (a UUID string)."""
        return "user:" + user_id

    class Registered(Aggregate.Created):
        """A user was created."""

        user_id: str
        email: str
        password_hash: str | None
        token_hash: str | None
        admin_access: bool
        status: str
        registered_at: str

    @event(Registered)
    def __init__(
        self,
        user_id: str,
        email: str,
        password_hash: str | None,
        token_hash: str | None,
        admin_access: bool,
        status: str,
        registered_at: str,
    ) -> None:
        self.user_id = user_id
        self.email = email
        self.password_hash = password_hash
        self.token_hash = token_hash
        self.admin_access = admin_access
        self.status = status
        self.registered_at = registered_at
