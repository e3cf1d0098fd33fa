"""Single sign-on with OpenID Connect providers, as Directus's `openid` driver does it:
the authorization-code flow with PKCE, `state` and `nonce`, then the user the provider
vouches for is found by its external identifier, or created when the provider allows
public registration, and signed in like a password user.

A flow is kept in the database (any process may take its callback), tied to the browser
that started it by a cookie, and used once.
"""

import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from application.access.authentication import MODES, Authenticator, Mode, SignIn
from application.items.service import ItemsService
from application.items.unit_of_work import Origin
from application.service.blocking import BlockingRunner
from application.service.errors import (
    InvalidCredentials,
    InvalidForeignKey,
    InvalidPayload,
    InvalidProvider,
    InvalidProviderConfig,
    InvalidToken,
    PlatformError,
    RecordNotUnique,
    ServiceUnavailable,
)
from domain.access.policies import SYSTEM
from domain.access.providers import Provider, Providers, redirect_target
from domain.collections.item_query import ItemQuery
from infrastructure.openid_client import (
    InvalidIdToken,
    OpenIDClient,
    ProviderRefused,
    ProviderUnreachable,
)
from infrastructure.passwords import hash_token
from infrastructure.sign_in_flows import SignInFlow, SignInFlowStore
from projections.access.reader import AccessReader, UserCredentials

log = logging.getLogger(__name__)

#: Seconds a browser has to come back from the provider (Directus: 5 minutes).
FLOW_LIFETIME = 300.0
_ID_ONLY = ItemQuery(fields=("id",))


@dataclass(frozen=True)
class ProviderListing:
    """A provider as `GET /auth` lists it."""

    name: str
    driver: str
    icon: str | None
    label: str | None


@dataclass(frozen=True)
class Started:
    """A flow begun: send the browser to `url` and give it the `browser` cookie."""

    url: str
    browser: str


@dataclass(frozen=True)
class Finished:
    """A flow's end: the sign-in, or the error; `redirect` is where the browser goes
    (None: answer the sign-in, or the error, directly)."""

    redirect: str | None
    sign_in: SignIn | None = None
    error: PlatformError | None = None


class SingleSignOn:
    """Starts and finishes sign-ins at the configured providers."""

    def __init__(
        self,
        providers: Providers,
        authenticator: Authenticator,
        reader: AccessReader,
        items: ItemsService,
        flows: SignInFlowStore,
        blocking: BlockingRunner,
        public_url: str,
        *,
        clients: Mapping[str, OpenIDClient] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.providers = providers
        self._authenticator = authenticator
        self._reader = reader
        self._items = items
        self._flows = flows
        self._blocking = blocking
        self._public_url = public_url.rstrip("/")
        self._clients = dict(clients or {})
        self._clock = clock
        for name, problem in providers.problems.items():
            log.error("sign-in provider %s cannot be used: %s", name, problem)

    def listing(self) -> list[ProviderListing]:
        """The usable providers, in the order `AUTH_PROVIDERS` names them."""
        return [
            ProviderListing(p.name, p.driver, p.icon, p.label)
            for p in self.providers.by_name.values()
        ]

    def callback_url(self, name: str) -> str:
        """Where the provider sends the browser back (registered with the provider)."""
        return f"{self._public_url}/auth/login/{name}/callback"

    async def start(
        self, name: str, redirect: str | None, mode: str | None, otp: str | None
    ) -> Started:
        """Begin a sign-in at provider `name`; `redirect` is where the browser goes after
        it (checked now, as Directus does), `mode` how the tokens are handed over."""
        provider = self._provider(name)
        target = None
        if redirect:
            target = redirect_target(redirect, self._public_url, provider.redirect_allow_list)
            if target is None:
                raise InvalidPayload(f'URL "{redirect}" can\'t be used to redirect after login')
        chosen = _mode(mode, provider.mode if target else "json")
        if target and chosen == "json":
            # The tokens of json mode travel in the answer's body, which a redirect has not.
            raise InvalidPayload('"mode" json cannot be used with a redirect')
        try:
            authorization = await self._client(provider).authorization(self.callback_url(name))
        except ProviderUnreachable as exc:
            raise _unavailable(provider, exc) from exc
        browser = secrets.token_urlsafe(32)
        flow = SignInFlow(
            provider=name,
            browser=browser,
            nonce=authorization.nonce,
            code_verifier=authorization.code_verifier,
            redirect=target,
            mode=chosen,
            otp=otp or None,
        )
        now = self._clock()
        await self._blocking.run(
            self._flows.add, authorization.state, flow, now + FLOW_LIFETIME, now
        )
        return Started(authorization.url, browser)

    async def finish(
        self,
        name: str,
        params: Mapping[str, str],
        browser: str | None,
        ip: str | None,
        user_agent: str | None,
    ) -> Finished:
        """End a flow with the provider's callback `params` (`state`, `code` or `error`),
        from the browser whose flow cookie is `browser`.

        A state that is missing, unknown, used or expired is INVALID_CREDENTIALS with no
        redirect (the flow, and so its redirect, is not known). Any later failure goes to
        the flow's redirect, if it has one, as Directus sends it (`?reason=<code>`).
        """
        provider = self._provider(name)
        state = params.get("state")
        flow = await self._blocking.run(self._flows.take, state) if state else None
        if flow is None or flow.provider != name or flow.expires_at <= self._clock():
            raise InvalidCredentials("The sign-in flow is unknown, used or expired")
        try:
            if browser is None or not secrets.compare_digest(
                hash_token(browser), flow.browser_hash
            ):
                log.warning("sign-in at %s refused: the callback came from another browser", name)
                raise InvalidCredentials("The sign-in was started in another browser")
            if params.get("error") or not params.get("code"):
                log.warning(
                    "sign-in at %s refused by the provider: %s",
                    name,
                    params.get("error") or "no code",
                )
                raise InvalidCredentials()
            claims = await self._claims(provider, params["code"], flow.code_verifier, flow.nonce)
            user = await self._user(provider, claims)
            mode = _mode(flow.mode, "json")
            sign_in = await self._authenticator.provider_login(user, flow.otp, mode, ip, user_agent)
        except PlatformError as exc:
            return Finished(flow.redirect, error=exc)
        return Finished(flow.redirect, sign_in=sign_in)

    async def _claims(
        self, provider: Provider, code: str, verifier: str, nonce: str
    ) -> dict[str, Any]:
        try:
            return await self._client(provider).claims(
                code, self.callback_url(provider.name), verifier, nonce
            )
        except ProviderRefused as exc:
            log.warning("sign-in at %s: the provider refused the code: %s", provider.name, exc)
            raise InvalidToken() from exc
        except InvalidIdToken as exc:
            log.warning("sign-in at %s: the ID token was refused: %s", provider.name, exc)
            raise InvalidCredentials() from exc
        except ProviderUnreachable as exc:
            raise _unavailable(provider, exc) from exc

    async def _user(self, provider: Provider, claims: Mapping[str, Any]) -> UserCredentials:
        """The user the provider vouches for: linked by external identifier, or created."""
        email = str(claims["email"]) if claims.get("email") else None
        found = claims.get(provider.identifier_key)
        identifier = str(found) if found else email
        if not identifier:
            log.warning("sign-in at %s: no %s claim", provider.name, provider.identifier_key)
            raise InvalidCredentials()
        user = await self._blocking.run(
            self._reader.user_by_external_identifier, provider.name, identifier
        )
        auth_data = {"iss": claims.get("iss"), "sub": claims.get("sub")}
        if user is not None:
            stored = await self._items.lookup("users", user.id)
            if stored is not None and stored.get("auth_data") != auth_data:
                # Linking: a user made for this provider ahead of its first sign-in.
                await self._items.set_values(
                    "users", user.id, {"auth_data": auth_data}, origin=Origin(user.id)
                )
            return user
        if not provider.allow_public_registration:
            log.warning(
                "sign-in at %s: no user has the identifier, and public registration is off",
                provider.name,
            )
            raise InvalidCredentials()
        payload = {
            "provider": provider.name,
            "external_identifier": identifier,
            "email": email,
            "first_name": claims.get("given_name"),
            "last_name": claims.get("family_name"),
            "role": provider.default_role_id,
            "auth_data": auth_data,
            "status": "active",
        }
        try:
            created = await self._items.create(SYSTEM, "users", [payload], _ID_ONLY)
        except RecordNotUnique as exc:
            # Another user has the e-mail address: Directus refuses rather than merges.
            log.warning("sign-in at %s: a user with this e-mail exists already", provider.name)
            raise InvalidCredentials() from exc
        except InvalidForeignKey as exc:
            log.error(
                "sign-in at %s: AUTH_%s_DEFAULT_ROLE_ID names no role",
                provider.name,
                provider.name.upper(),
            )
            raise InvalidProviderConfig(provider=provider.name) from exc
        user = await self._blocking.run(self._reader.user, str((created or [{}])[0].get("id")))
        if user is None:
            raise InvalidCredentials()
        return user

    def _provider(self, name: str) -> Provider:
        provider = self.providers.get(name)
        if provider is not None:
            return provider
        if name in self.providers.problems:
            raise InvalidProviderConfig(provider=name)
        raise InvalidProvider()

    def _client(self, provider: Provider) -> OpenIDClient:
        client = self._clients.get(provider.name)
        if client is None:
            client = OpenIDClient(
                provider.discovery_url, provider.client_id, provider.client_secret, provider.scope
            )
            self._clients[provider.name] = client
        return client


def _mode(given: str | None, default: str) -> Mode:
    wanted = given or default
    for mode in MODES:
        if wanted == mode:
            return mode
    raise InvalidPayload('"mode" must be one of json, cookie, session')


def _unavailable(provider: Provider, exc: Exception) -> ServiceUnavailable:
    log.error("sign-in provider %s is unreachable: %s", provider.name, exc)
    return ServiceUnavailable(
        f'Service "openid" is unavailable. Couldn\'t reach provider "{provider.name}".',
        service="openid",
    )


def failure_location(redirect: str, code: str) -> str:
    """Where a failed sign-in sends the browser: the redirect without its query, with
    `?reason=<code>`, as Directus does."""
    return f"{redirect.split('?')[0]}?{urlencode({'reason': code})}"
