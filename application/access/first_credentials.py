"""Keeping the bootstrap admin's generated credentials until the admin first signs in."""

from pathlib import Path

from application.access.bootstrap import BOOTSTRAP_ADMIN_ID, BootstrapCredentials
from infrastructure.credentials_file import CredentialsFile
from infrastructure.passwords import Passwords
from infrastructure.settings import Settings
from projections.access.reader import AccessReader


class FirstCredentials:
    """The 0600 file of generated credentials: written when the admin is created, deleted
    by the admin's first password sign-in.

    With all three credentials set in the environment nothing is generated, so no file is
    written and none is deleted.
    """

    def __init__(self, settings: Settings) -> None:
        self._file = CredentialsFile(Path(settings.bootstrap_credentials_file).absolute())
        self._fixed = bool(
            settings.admin_email and settings.admin_password and settings.admin_token
        )
        # What the operator set is theirs already: neither printed nor written.
        self._given = {
            "password": "TRACEPOINT_ADMIN_PASSWORD" if settings.admin_password else None,
            "static token": "TRACEPOINT_ADMIN_TOKEN" if settings.admin_token else None,
        }

    @property
    def path(self) -> Path:
        """Where the credentials are kept."""
        return self._file.path

    def waiting(self) -> bool:
        """Whether generated credentials still wait for the admin's first sign-in."""
        return not self._fixed and self._file.exists()

    def lines(self, credentials: BootstrapCredentials) -> dict[str, str]:
        """The credentials to show and keep, by name."""
        values = {"password": credentials.password, "static token": credentials.token}
        shown = {"email": credentials.email}
        for name, value in values.items():
            setting = self._given[name]
            shown[name] = f"(as set in {setting})" if setting else str(value)
        return shown

    def keep(self, credentials: BootstrapCredentials) -> str | None:
        """Write the credentials; the reason when they could not be written."""
        try:
            self._file.write(self.lines(credentials))
        except OSError as exc:
            return f"{exc.strerror or exc} ({self._file.path})"
        return None

    def discard_if_used(self, reader: AccessReader, passwords: Passwords) -> bool:
        """At start: delete the file when the admin has signed in already (through any
        process) or its password is no longer the file's; True when it was deleted."""
        if not self.waiting():
            return False
        admin = reader.user(BOOTSTRAP_ADMIN_ID)
        used = admin is None or reader.last_access(BOOTSTRAP_ADMIN_ID) is not None
        password = self._file.read().get("password")
        if not used and self._given["password"] is None and password is not None:
            # One password hash, and only while the file waits: a reset changes the hash.
            used = admin is not None and not passwords.verify(admin.password_hash, password)
        if used:
            self._file.discard()
        return used

    def signed_in(self, user_id: str) -> None:
        """The bootstrap admin has signed in: the file has done its work."""
        if user_id == BOOTSTRAP_ADMIN_ID and not self._fixed:
            self._file.discard()
