"""Signing in and out, refreshing, and resolving a request's token to its caller.

Access tokens are short-lived JWTs; refresh and session tokens are opaque, random and
stored only as digests; static tokens (a user's `token` field) never expire and are the
only kind the EPCIS API accepts.
"""

import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from application.access.accountability import AccessService
from application.access.throttle import Attempt, Throttle
from application.service.blocking import BlockingRunner
from application.service.errors import (
    InvalidCredentials,
    InvalidOtp,
    InvalidPayload,
    InvalidToken,
    TokenExpired,
    UserSuspended,
)
from domain.access.collections import normalise_email
from domain.access.policies import Accountability
from domain.access.providers import DEFAULT_PROVIDER
from infrastructure.access_tokens import AccessTokens, BadAccessToken, ExpiredAccessToken
from infrastructure.one_time_passwords import matching_step
from infrastructure.passwords import Passwords, hash_token
from infrastructure.session_store import Reused, SessionStore
from projections.access.reader import UserCredentials

Mode = Literal["json", "cookie", "session"]
MODES: tuple[Mode, ...] = ("json", "cookie", "session")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TokenLifetimes:
    """Seconds each kind of token lives."""

    access: float
    refresh: float
    session: float


@dataclass(frozen=True)
class SignIn:
    """What a login or refresh hands out; which parts travel where depends on the mode."""

    mode: Mode
    #: The JWT; in session mode it is the session cookie's value.
    access_token: str
    #: The opaque refresh token (json: in the body; cookie: in a cookie; session: unused).
    refresh_token: str | None
    #: Lifetime of the access token in milliseconds.
    expires: int


class Authenticator:
    """Logins, refreshes, logouts, and the caller behind a token."""

    def __init__(
        self,
        access: AccessService,
        sessions: SessionStore,
        tokens: AccessTokens,
        blocking: BlockingRunner,
        lifetimes: TokenLifetimes,
        *,
        throttle: Throttle,
        passwords: Passwords,
        password_checks: BlockingRunner,
        signed_in: Callable[[str, str | None, str | None], Awaitable[None]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._signed_in = signed_in
        self._access = access
        self._sessions = sessions
        self._tokens = tokens
        self._blocking = blocking
        self.lifetimes = lifetimes
        self._throttle = throttle
        # Password checks run apart, so a burst of logins cannot hold up every request.
        self._password_checks = password_checks
        self._passwords = passwords
        self._clock = clock

    # -- resolving callers -----------------------------------------------------------

    async def caller(self, token: str | None, ip: str | None) -> Accountability:
        """The accountability behind a token of any kind; the public one without a token.

        An expired JWT is TOKEN_EXPIRED, a forged one INVALID_TOKEN; an unknown static
        token, or a token of a user who may no longer sign in, INVALID_CREDENTIALS.
        """
        if not token:
            return await self._access.public(ip)
        if not self._tokens.is_ours(token):
            return await self.static_caller(token, ip)
        claims = self._verified(token)
        user_id = claims.get("id")
        # Links in e-mails are signed by the same key: only access tokens authenticate.
        if claims.get("typ") != "access" or not isinstance(user_id, str):
            raise InvalidToken()
        session = claims.get("session")
        if session is not None:
            # Session tokens can be revoked: the session must still be there.
            found = await self._blocking.run(self._sessions.find, str(session), self._clock())
            if found is None or found.user_id != user_id:
                raise InvalidCredentials()
        user = await self._access.user(user_id)
        if user is None or user.status != "active":
            raise InvalidCredentials()
        family = claims.get("sid")
        return await self._access.for_user(
            user,
            ip,
            "session" if session else "jwt",
            session=family if isinstance(family, str) else None,
        )

    async def static_caller(self, token: str, ip: str | None) -> Accountability:
        """The accountability of an active user's static token; INVALID_CREDENTIALS else."""
        user = await self._access.user_by_token(hash_token(token))
        if user is None or user.status != "active":
            raise InvalidCredentials()
        return await self._access.for_user(user, ip, "static")

    # -- signing in and out ----------------------------------------------------------

    async def login(
        self,
        email: str,
        password: str,
        otp: str | None,
        mode: Mode,
        ip: str | None,
        user_agent: str | None,
    ) -> SignIn:
        """Check the credentials (and the one-time password of a user with two-factor
        authentication) and open a session.

        Every failure costs the same time and says the same thing, whether or not the
        e-mail exists. Failures in a row lock the password sign-in of the e-mail and of
        the client address for a while (`Throttle.begin`): never the account itself, its
        static token or its sessions.
        """
        attempt = await self._throttle.begin(ip, normalise_email(email))
        user: UserCredentials | None = None
        try:
            user = await self._blocking.run(self._access.reader.user_by_email, email)
            stored = user.password_hash if user is not None else None
            # Without a stored hash this costs what checking one does (`Passwords.verify`).
            matches = await self._password_checks.run(self._passwords.verify, stored, password)
            # A user of a sign-in provider proves who they are there, never by a password
            # (Directus: a provider mismatch is INVALID_CREDENTIALS).
            if (
                user is None
                or stored is None
                or not matches
                or user.status != "active"
                or user.provider != DEFAULT_PROVIDER
            ):
                raise InvalidCredentials()
            if user.tfa_secret:
                await self._check_otp(user, otp, attempt)
        except (InvalidCredentials, InvalidOtp):
            # Logs the lock this failure started, if any (a withdrawn attempt started none).
            with contextlib.suppress(Exception):  # a log line is no reason for another answer
                await self._throttle.failed(attempt, _account_label(user, email))
            raise
        except BaseException:
            # Neither a failure nor a success (the database went away, the client left
            # during the check): the failure counted ahead is taken back, or someone
            # retrying through an outage would lock their own sign-in.
            with contextlib.suppress(Exception):
                await self._throttle.withdraw(attempt)
            raise
        await self._throttle.succeeded(attempt)
        await self._signed_in(user.id, ip, user_agent)
        await self._blocking.run(self._sessions.purge, self._clock())
        return await self.open_session(user, mode, ip, user_agent)

    async def provider_login(
        self,
        user: UserCredentials,
        otp: str | None,
        mode: Mode,
        ip: str | None,
        user_agent: str | None,
    ) -> SignIn:
        """Open a session for a user a sign-in provider vouched for: the account must be
        active, and a user with two-factor authentication gives the current code too.

        Wrong codes count and lock as they do for a password sign-in (`Throttle.begin`,
        the account named by its e-mail): the provider's sign-in is no reason for
        unlimited guesses."""
        if user.status != "active":
            if user.status == "suspended":
                raise UserSuspended()
            raise InvalidCredentials()
        if user.tfa_secret:
            await self._provider_otp(user, otp, ip)
        await self._signed_in(user.id, ip, user_agent)
        await self._blocking.run(self._sessions.purge, self._clock())
        return await self.open_session(user, mode, ip, user_agent)

    async def _provider_otp(self, user: UserCredentials, otp: str | None, ip: str | None) -> None:
        attempt = await self._throttle.begin(ip, normalise_email(user.email or user.id))
        try:
            await self._check_otp(user, otp, attempt)
        except InvalidOtp:
            with contextlib.suppress(Exception):  # a log line is no reason for another answer
                await self._throttle.failed(attempt, _account_label(user, user.email or ""))
            raise
        except BaseException:
            with contextlib.suppress(Exception):
                await self._throttle.withdraw(attempt)
            raise
        await self._throttle.succeeded(attempt)

    async def _check_otp(self, user: UserCredentials, otp: str | None, attempt: Attempt) -> None:
        """The user's current code, used once: a code seen by someone else is no use.
        A wrong code is a failure like a wrong password (counted ahead by `begin`)."""
        assert user.tfa_secret is not None
        if otp is None:
            await self._throttle.withdraw(attempt)
            raise InvalidOtp()
        step = matching_step(user.tfa_secret, otp)
        if step is None or not await self._blocking.run(self._sessions.use_otp_step, user.id, step):
            raise InvalidOtp()

    async def open_session(
        self, user: UserCredentials, mode: Mode, ip: str | None, user_agent: str | None
    ) -> SignIn:
        """Tokens for a user who has proved who they are."""
        refresh = secrets.token_urlsafe(48)
        lifetime = self.lifetimes.session if mode == "session" else self.lifetimes.refresh
        family = await self._blocking.run(
            self._sessions.create, refresh, user.id, self._clock() + lifetime, ip, user_agent
        )
        return await self._sign_in(user, mode, refresh, family)

    async def refresh(self, token: str | None, mode: Mode) -> SignIn:
        """New tokens for a live refresh (or session) token, which stops working at once.
        A token already replaced ends its whole sign-in (every token of the family)."""
        if not token:
            raise InvalidPayload("The refresh token is required in either the payload or cookie")
        old = self._session_of(token) if mode == "session" else token
        lifetime = self.lifetimes.session if mode == "session" else self.lifetimes.refresh
        new = secrets.token_urlsafe(48)
        now = self._clock()
        session = await self._blocking.run(self._sessions.rotate, old, new, now, now + lifetime)
        if isinstance(session, Reused):
            # Operators see it; the caller learns no more than from any dead token.
            log.warning(
                "a replaced refresh token was used again: sign-in %s ended (%d session(s))",
                session.family,
                session.ended,
            )
            raise InvalidCredentials()
        if session is None:
            raise InvalidCredentials()
        user = await self._blocking.run(self._access.reader.user, session.user_id)
        if user is None or user.status != "active":
            await self._blocking.run(self._sessions.end, new)
            if user is not None and user.status == "suspended":
                raise UserSuspended()
            raise InvalidCredentials()
        return await self._sign_in(user, mode, new, session.family)

    async def logout(self, token: str | None, mode: Mode) -> None:
        """End the session of a refresh or session token; unknown tokens change nothing."""
        if not token:
            raise InvalidPayload("The refresh token is required in either the payload or cookie")
        refresh = token
        if mode == "session":
            try:
                refresh = self._session_of(token)
            except (InvalidToken, TokenExpired):
                return
        await self._blocking.run(self._sessions.end, refresh)

    def _verified(self, token: str) -> dict[str, Any]:
        try:
            return self._tokens.verify(token)
        except ExpiredAccessToken as exc:
            raise TokenExpired() from exc
        except BadAccessToken as exc:
            raise InvalidToken() from exc

    def _session_of(self, session_token: str) -> str:
        claims = self._verified(session_token)
        session = claims.get("session")
        if claims.get("typ") != "access" or not isinstance(session, str):
            raise InvalidToken()
        return session

    async def _sign_in(
        self, user: UserCredentials, mode: Mode, refresh: str, family: str
    ) -> SignIn:
        caller = await self._access.for_user(user, None, "jwt")
        claims: dict[str, object] = {
            "typ": "access",
            "id": user.id,
            # The sign-in this token came from: a password change keeps it signed in.
            "sid": family,
            "role": user.role,
            "app_access": caller.app,
            "admin_access": caller.admin,
        }
        lifetime = self.lifetimes.access
        if mode == "session":
            claims["session"] = refresh
            lifetime = self.lifetimes.session
        return SignIn(
            mode=mode,
            access_token=self._tokens.issue(claims, lifetime),
            refresh_token=None if mode == "session" else refresh,
            expires=int(lifetime * 1000),
        )


def _account_label(user: UserCredentials | None, email: str) -> str:
    """How logs name a sign-in's account: its user id, or the e-mail masked (no user)."""
    if user is not None:
        return f"user {user.id}"
    local, at, domain = normalise_email(email).partition("@")
    return f"unknown e-mail {local[:1]}***{at}{domain}"
