"""Sign-in providers as Directus configures them from the environment (`AUTH_PROVIDERS`,
`AUTH_<NAME>_DRIVER`, …), and where a single sign-on may send the browser afterwards."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

#: The built-in e-mail and password sign-in; no configured provider may take its name.
DEFAULT_PROVIDER = "default"
#: The drivers Tracepoint implements (Directus has oauth2, ldap and saml too).
DRIVERS = ("openid",)
#: Answer modes of a sign-in.
MODES = ("json", "cookie", "session")


class ProviderConfigError(ValueError):
    """A provider's variables are incomplete or contradictory."""


@dataclass(frozen=True)
class Provider:
    """One configured provider, from its `AUTH_<NAME>_*` variables."""

    name: str
    driver: str
    client_id: str
    client_secret: str
    #: The issuer, or its discovery document (`…/.well-known/openid-configuration`).
    issuer_url: str
    #: The claim that identifies a user (Directus's default: `sub`, else the e-mail).
    identifier_key: str = "sub"
    allow_public_registration: bool = False
    default_role_id: str | None = None
    redirect_allow_list: tuple[str, ...] = ()
    #: How a sign-in that redirects hands over its tokens (Directus's default: session).
    mode: str = "session"
    scope: str = "openid profile email"
    icon: str | None = None
    label: str | None = None

    @property
    def discovery_url(self) -> str:
        """The provider's discovery document."""
        if "/.well-known/" in self.issuer_url:
            return self.issuer_url
        return self.issuer_url.rstrip("/") + "/.well-known/openid-configuration"


@dataclass(frozen=True)
class Providers:
    """The configured providers, by name, and whether e-mail and password sign-in is off."""

    by_name: Mapping[str, Provider]
    disable_default: bool = False
    #: What is wrong with each provider that `AUTH_PROVIDERS` names but cannot be used.
    problems: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_environment(cls, env: Mapping[str, str]) -> "Providers":
        """The providers `AUTH_PROVIDERS` names; those configured wrong in `problems`."""
        names = [n.strip() for n in env.get("AUTH_PROVIDERS", "").split(",") if n.strip()]
        providers: dict[str, Provider] = {}
        problems: dict[str, str] = {}
        for name in names:
            try:
                providers[name] = _provider(name, env)
            except ProviderConfigError as exc:
                problems[name] = str(exc)
        try:
            disable_default = _flag(env, "AUTH_DISABLE_DEFAULT", "false")
        except ProviderConfigError as exc:
            problems[DEFAULT_PROVIDER] = str(exc)
            disable_default = False
        return cls(providers, disable_default, problems)

    def get(self, name: str) -> Provider | None:
        """The provider of this name, or None."""
        return self.by_name.get(name)


def _provider(name: str, env: Mapping[str, str]) -> Provider:
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise ProviderConfigError(f'AUTH_PROVIDERS: "{name}" is no name (letters, digits, _ and -)')
    if name == DEFAULT_PROVIDER:
        raise ProviderConfigError(f'AUTH_PROVIDERS: "{DEFAULT_PROVIDER}" is the built-in provider')
    prefix = f"AUTH_{name.upper()}_"

    def value(key: str, default: str = "") -> str:
        return env.get(prefix + key, default).strip()

    driver = value("DRIVER")
    if driver not in DRIVERS:
        raise ProviderConfigError(
            f"{prefix}DRIVER must be one of {', '.join(DRIVERS)} (it is {driver or 'unset'})"
        )
    missing = [k for k in ("CLIENT_ID", "CLIENT_SECRET", "ISSUER_URL") if not value(k)]
    if missing:
        raise ProviderConfigError(", ".join(prefix + k for k in missing) + " must be set")
    mode = value("MODE", "session")
    if mode not in ("cookie", "session"):
        raise ProviderConfigError(f"{prefix}MODE must be cookie or session (it is {mode})")
    return Provider(
        name=name,
        driver=driver,
        client_id=value("CLIENT_ID"),
        client_secret=value("CLIENT_SECRET"),
        issuer_url=value("ISSUER_URL"),
        identifier_key=value("IDENTIFIER_KEY", "sub"),
        allow_public_registration=_flag(env, prefix + "ALLOW_PUBLIC_REGISTRATION", "false"),
        default_role_id=value("DEFAULT_ROLE_ID") or None,
        redirect_allow_list=tuple(
            u.strip() for u in value("REDIRECT_ALLOW_LIST").split(",") if u.strip()
        ),
        mode=mode,
        scope=value("SCOPE", "openid profile email"),
        icon=value("ICON") or None,
        label=value("LABEL") or None,
    )


def _flag(env: Mapping[str, str], name: str, default: str) -> bool:
    text = env.get(name, default).strip().lower()
    if text not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        raise ProviderConfigError(f"{name} must be true or false (it is {text})")
    return text in ("true", "1", "yes", "on")


def redirect_target(redirect: str, public_url: str, allow_list: tuple[str, ...]) -> str | None:
    """Where a sign-in may send the browser when it asks for `redirect`, as an absolute
    URL; None when it may not go there.

    As Directus: a path on this service (`/console/`), a URL on PUBLIC_URL's origin, or one
    of the provider's allow list (scheme, host, port and path as listed; the query may
    differ). Stricter than Directus: the port counts, and `//host` or a backslash, which
    browsers read as another host, are refused.
    """
    if not redirect or "\\" in redirect or any(ord(c) < 0x20 for c in redirect):
        return None
    if redirect.startswith("/") and not redirect.startswith("//"):
        redirect = urljoin(public_url.rstrip("/") + "/", redirect.lstrip("/"))
    target = urlsplit(redirect)
    if target.scheme not in ("http", "https") or not target.netloc:
        return None
    if _origin(redirect) == _origin(public_url):
        return redirect
    for allowed in allow_list:
        entry = urlsplit(allowed)
        if _origin(allowed) == _origin(redirect) and (entry.path or "/") == (target.path or "/"):
            return redirect
    return None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        return ("", "", None)
    return (scheme, (parts.hostname or "").lower(), port)
