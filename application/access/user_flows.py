"""The flows that reach users by e-mail or one-time passwords: registration, invitations,
password resets and two-factor authentication.

Links in e-mails carry signed, short-lived tokens with a scope; a password-reset token
also carries a digest of the password it replaces, so it works once.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from application.access.outbox import Outbox
from application.access.throttle import Throttle
from application.items.service import ItemsService
from application.items.unit_of_work import Origin
from application.service.blocking import BlockingRunner
from application.service.errors import (
    Forbidden,
    InvalidCredentials,
    InvalidPayload,
    RecordNotUnique,
    RequestsExceeded,
)
from domain.access.collections import normalise_email
from domain.access.policies import SYSTEM, Accountability
from domain.access.providers import DEFAULT_PROVIDER
from domain.collections.item_query import ItemQuery
from infrastructure.access_tokens import AccessTokens, BadAccessToken, ExpiredAccessToken
from infrastructure.mailer import Mail
from infrastructure.one_time_passwords import new_secret, provisioning_url, valid_otp
from infrastructure.passwords import Passwords
from projections.access.reader import AccessReader, UserCredentials

#: Seconds a link in an e-mail stays valid.
REGISTRATION_TTL = 7 * 86_400
INVITE_TTL = 7 * 86_400
PASSWORD_RESET_TTL = 86_400

_ID_ONLY = ItemQuery(fields=("id",))


def allow_list(setting: str) -> tuple[str, ...]:
    """The URLs of a comma-separated allow-list setting."""
    return tuple(u.strip() for u in setting.split(",") if u.strip())


@dataclass(frozen=True)
class FlowSettings:
    """Where links point and who may register."""

    public_url: str
    register_urls: tuple[str, ...]
    invite_urls: tuple[str, ...]
    reset_urls: tuple[str, ...]
    public_registration: bool
    registration_role: str | None
    verify_email: bool


def _link(base: str, token: str) -> str:
    parts = urlsplit(base)
    query = f"{parts.query}&" if parts.query else ""
    return urlunsplit(parts._replace(query=query + urlencode({"token": token})))


def _allowed(url: Any, allowed: Sequence[str], name: str) -> str | None:
    if url is None:
        return None
    if not isinstance(url, str) or url not in allowed:
        raise InvalidPayload(f'"{name}" is not in the allow-list of URLs')
    return url


def _password_digest(password_hash: str | None) -> str:
    return hashlib.sha256((password_hash or "").encode()).hexdigest()[:16]


class UserFlows:
    """Register, invite, reset passwords and manage two-factor authentication."""

    def __init__(
        self,
        items: ItemsService,
        reader: AccessReader,
        tokens: AccessTokens,
        outbox: Outbox,
        settings: FlowSettings,
        blocking: BlockingRunner,
        throttle: Throttle,
        passwords: Passwords,
        sign_in: Throttle | None = None,
    ) -> None:
        # Each request that sends a mail to an address of the requester's choosing takes
        # a place: nobody floods an inbox through the service.
        self._throttle = throttle
        #: The password sign-in's locks, which a password reset lifts from its account.
        self._sign_in = sign_in
        self._blocking = blocking
        self._items = items
        self._reader = reader
        self._tokens = tokens
        self._outbox = outbox
        self._settings = settings
        self._passwords = passwords

    # -- registration --------------------------------------------------------------

    async def register(
        self,
        email: str,
        password: str,
        first_name: Any,
        last_name: Any,
        verification_url: Any,
        ip: str | None,
    ) -> None:
        """Create a user who registered themselves; mail them a link to verify it.

        An address that is taken answers like a new one, so nobody learns who has an
        account; an unverified user gets the link again.
        """
        settings = self._settings
        if not settings.public_registration:
            raise Forbidden("Public registration is disabled.")
        await self._take_place(ip)
        url = _allowed(verification_url, settings.register_urls, "verification_url")
        existing = await self._user_by_email(email)
        if existing is None:
            payload: dict[str, Any] = {
                "email": email,
                "password": password,
                "first_name": first_name,
                "last_name": last_name,
                "role": settings.registration_role,
                "status": "unverified" if settings.verify_email else "active",
            }
            payload = {k: v for k, v in payload.items() if v is not None}
            try:
                await self._items.create(SYSTEM, "users", [payload], _ID_ONLY)
            except RecordNotUnique:
                return  # registered a moment ago: answered like any taken address
        elif existing.status != "unverified":
            return
        if settings.verify_email:
            self._mail_link(
                email,
                "Verify your e-mail address",
                "Confirm your registration by opening this link:",
                url or "/console/verify-email",
                {"scope": "pending-registration"},
                REGISTRATION_TTL,
            )

    async def verify_email(self, token: str) -> None:
        """Activate the user a registration link was sent to."""
        email = self._claim(token, "pending-registration")
        user = await self._user_by_email(email)
        if user is None or user.status != "unverified":
            raise InvalidPayload("Invalid verification code")
        await self._items.update(SYSTEM, "users", [user.id], {"status": "active"}, _ID_ONLY)

    # -- invitations ---------------------------------------------------------------

    async def invite(self, caller: Accountability, emails: Any, role: Any, invite_url: Any) -> None:
        """Create invited users with a role (the caller needs create on users) and mail
        each a link to set a password."""
        addresses = [emails] if isinstance(emails, str) else emails
        if (
            not isinstance(addresses, list)
            or not addresses
            or not all(isinstance(a, str) for a in addresses)
        ):
            raise InvalidPayload('"email" must be an e-mail address or a list of them')
        if not isinstance(role, str):
            raise InvalidPayload('"role" is required')
        url = _allowed(invite_url, self._settings.invite_urls, "invite_url")
        if not caller.admin and caller.access("users", "create") is None:
            # Checked before any look-up, so the answer tells nothing about who exists.
            raise Forbidden(
                'You don\'t have permission to perform "create" for collection "users".'
            )
        for email in addresses:
            existing = await self._user_by_email(email)
            if existing is None:
                await self._items.create(
                    caller, "users", [{"email": email, "role": role, "status": "invited"}], _ID_ONLY
                )
            elif existing.status != "invited":
                continue
            elif existing.role != role:
                await self._items.update(caller, "users", [existing.id], {"role": role}, _ID_ONLY)
            self._mail_link(
                email,
                "You have been invited",
                "You have been invited to Tracepoint. Accept the invitation here:",
                url or "/console/accept-invite",
                {"scope": "invite"},
                INVITE_TTL,
            )

    async def accept_invite(self, token: str, password: str) -> None:
        """Set the invited user's password and activate them."""
        email = self._claim(token, "invite")
        user = await self._user_by_email(email)
        if user is None or user.status != "invited":
            raise InvalidPayload("Invalid invitation")
        await self._items.update(
            SYSTEM, "users", [user.id], {"password": password, "status": "active"}, _ID_ONLY
        )

    # -- password reset ------------------------------------------------------------

    async def request_password_reset(self, email: str, reset_url: Any, ip: str | None) -> None:
        """Mail an active user a link to choose a new password; say nothing of others."""
        await self._take_place(ip)
        user = await self._user_by_email(email)
        if user is None or user.status != "active":
            return
        url = _allowed(reset_url, self._settings.reset_urls, "reset_url")
        self._mail_link(
            email,
            "Reset your password",
            "Choose a new password here (the link works once, for a day):",
            url or "/console/reset-password",
            {"scope": "password-reset", "hash": _password_digest(user.password_hash)},
            PASSWORD_RESET_TTL,
        )

    async def reset_password(self, token: str, password: str) -> None:
        """Set a new password with a reset link's token; the token then stops working."""
        claims = self._claims(token, "password-reset")
        user = await self._user_by_email(str(claims.get("email")))
        if (
            user is None
            or user.status != "active"
            or claims.get("hash") != _password_digest(user.password_hash)
        ):
            raise Forbidden()
        # The new password signs the user out everywhere (see the users' rules).
        await self._items.update(SYSTEM, "users", [user.id], {"password": password}, _ID_ONLY)
        if self._sign_in is not None:
            await self._sign_in.unlock(normalise_email(str(claims.get("email"))))

    # -- two-factor authentication -------------------------------------------------

    async def generate_tfa(self, caller: Accountability, password: str | None) -> tuple[str, str]:
        """A new TOTP secret and its otpauth:// URL, after checking the password of a user
        who signs in with one (a user of a sign-in provider has none to give: Directus asks
        them for none). Nothing is stored until the secret is enabled with a code it
        produced."""
        user = await self._signed_in(caller)
        if user.provider == DEFAULT_PROVIDER:
            if password is None:
                raise InvalidPayload('"password" is required')
            if user.password_hash is None or not await self._blocking.run(
                self._passwords.verify, user.password_hash, password
            ):
                raise InvalidCredentials()
        if user.tfa_secret:
            raise InvalidPayload("TFA Secret is already set for this user")
        secret = new_secret()
        return secret, provisioning_url(secret, user.email or user.id)

    async def enable_tfa(self, caller: Accountability, secret: str, otp: str) -> None:
        """Store the secret once the caller proves their app produces its codes."""
        user = await self._signed_in(caller)
        if user.tfa_secret:
            raise InvalidPayload("TFA Secret is already set for this user")
        if not valid_otp(secret, otp):
            raise InvalidPayload('"otp" is invalid')
        await self._items.set_values(
            "users", user.id, {"tfa_secret": secret}, origin=Origin.of(caller)
        )

    async def disable_tfa(self, caller: Accountability, otp: str) -> None:
        """Remove the secret, with a current code as proof."""
        user = await self._signed_in(caller)
        if not user.tfa_secret or not valid_otp(user.tfa_secret, otp):
            raise InvalidPayload('"otp" is invalid')
        await self._items.set_values(
            "users", user.id, {"tfa_secret": None}, origin=Origin.of(caller)
        )

    async def reset_tfa(self, caller: Accountability, user_id: str) -> None:
        """An administrator removes a user's secret (a lost phone); Forbidden to others
        and for users that do not exist."""
        if not caller.admin:
            raise Forbidden()
        user = await self._blocking.run(self._reader.user, user_id)
        if user is None:
            raise Forbidden()
        await self._items.set_values(
            "users", user.id, {"tfa_secret": None}, origin=Origin.of(caller)
        )

    # -- helpers -------------------------------------------------------------------

    async def _take_place(self, ip: str | None) -> None:
        wait = await self._throttle.attempt(ip)
        if wait:
            raise RequestsExceeded(wait, self._throttle.per_minute)

    def _mail_link(
        self,
        email: str,
        subject: str,
        text: str,
        url: str,
        claims: dict[str, Any],
        ttl: float,
    ) -> None:
        """Mail a link carrying a signed token for this address; a path is taken from
        the service's public URL."""
        token = self._tokens.issue({**claims, "email": normalise_email(email)}, ttl)
        base = f"{self._settings.public_url.rstrip('/')}{url}" if url.startswith("/") else url
        self._outbox.post(Mail(email, subject, f"{text}\n\n{_link(base, token)}\n"))

    async def _signed_in(self, caller: Accountability) -> UserCredentials:
        user = await self._blocking.run(self._reader.user, caller.user) if caller.user else None
        if user is None:
            raise InvalidCredentials()
        return user

    async def _user_by_email(self, email: str) -> UserCredentials | None:
        return await self._blocking.run(self._reader.user_by_email, email)

    def _claims(self, token: Any, scope: str) -> dict[str, Any]:
        if not isinstance(token, str) or not token:
            raise InvalidPayload('"token" is required')
        try:
            claims = self._tokens.verify(token)
        except (ExpiredAccessToken, BadAccessToken) as exc:
            raise Forbidden() from exc
        if claims.get("scope") != scope or not isinstance(claims.get("email"), str):
            raise Forbidden()
        return claims

    def _claim(self, token: Any, scope: str) -> str:
        return str(self._claims(token, scope)["email"])
