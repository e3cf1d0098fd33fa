"""The relying-party side of OpenID Connect, done by Authlib: discovery, the authorization
URL with PKCE (S256), `state` and `nonce`, the code exchange, the ID token's signature and
claims (issuer, audience, expiry, nonce) against the provider's keys, and the userinfo."""

from dataclasses import dataclass
from typing import Any

import httpx2
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.base_client import BaseApp, OAuthError
from authlib.integrations.base_client.async_app import AsyncOAuth2Mixin
from authlib.integrations.base_client.async_openid import AsyncOpenIDMixin
from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc.errors import JoseError

#: Seconds a request to the provider may take.
TIMEOUT = 10.0


class ProviderUnreachable(Exception):
    """The provider did not answer, or answered what is no OpenID provider's answer."""


class ProviderRefused(Exception):
    """The provider refused the code (`invalid_grant`: used, expired, not for us)."""


class InvalidIdToken(Exception):
    """The ID token is not the provider's for this flow (signature, issuer, audience,
    expiry or nonce)."""


class _App(AsyncOAuth2Mixin, AsyncOpenIDMixin, BaseApp):  # type: ignore[misc]
    """Authlib's client app without a web framework: the flow's data is ours to keep."""

    client_cls = AsyncOAuth2Client


@dataclass(frozen=True)
class Authorization:
    """Where to send the browser, and the secrets the callback will need."""

    url: str
    state: str
    nonce: str
    code_verifier: str


class OpenIDClient:
    """One provider's client: its discovery document is read once, on first use."""

    def __init__(self, discovery_url: str, client_id: str, client_secret: str, scope: str):
        self._app = _App(
            framework=None,
            client_id=client_id,
            client_secret=client_secret,
            server_metadata_url=discovery_url,
            client_kwargs={
                "scope": scope,
                "code_challenge_method": "S256",
                "timeout": TIMEOUT,
            },
        )

    async def authorization(self, redirect_uri: str) -> Authorization:
        """A new authorization request, with fresh state, nonce and PKCE verifier."""
        try:
            made = await self._app.create_authorization_url(redirect_uri)
        except (httpx2.HTTPError, ValueError, KeyError, RuntimeError) as exc:
            raise ProviderUnreachable(str(exc) or type(exc).__name__) from exc
        return Authorization(
            str(made["url"]), str(made["state"]), str(made["nonce"]), str(made["code_verifier"])
        )

    async def claims(
        self, code: str, redirect_uri: str, code_verifier: str, nonce: str
    ) -> dict[str, Any]:
        """The user's claims: the verified ID token's, completed by the userinfo endpoint."""
        try:
            token = await self._app.fetch_access_token(
                redirect_uri, code=code, code_verifier=code_verifier
            )
        except OAuthError as exc:
            if exc.error == "invalid_grant":
                raise ProviderRefused(exc.description or exc.error) from exc
            raise ProviderUnreachable(f"{exc.error}: {exc.description}") from exc
        except (httpx2.HTTPError, ValueError, KeyError, RuntimeError) as exc:
            raise ProviderUnreachable(str(exc) or type(exc).__name__) from exc
        if "id_token" not in token:
            raise InvalidIdToken("the provider sent no ID token")
        try:
            claims = dict(await self._app.parse_id_token(token, nonce=nonce))
        except (JoseError, AuthlibBaseError, ValueError) as exc:
            raise InvalidIdToken(str(exc) or type(exc).__name__) from exc
        except httpx2.HTTPError as exc:
            raise ProviderUnreachable(str(exc) or type(exc).__name__) from exc
        metadata = await self._app.load_server_metadata()
        if metadata.get("userinfo_endpoint"):
            try:
                info = dict(await self._app.userinfo(token=token))
            except (httpx2.HTTPError, AuthlibBaseError, ValueError) as exc:
                raise ProviderUnreachable(str(exc) or type(exc).__name__) from exc
            # The userinfo's `sub` must be the ID token's (OpenID Connect Core §5.3.2).
            if info.get("sub") == claims.get("sub"):
                claims = {**info, **claims}
        return claims
