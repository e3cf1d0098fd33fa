"""Secrets out of log lines: values masked by the name of the key that carries them."""

import re
from typing import Any
from urllib.parse import unquote_plus

MASK = "***"

#: A key whose name contains one of these carries a secret: access_token, refresh_token,
#: signatureToken, a static `token`, password, new_password, client_secret, api_key...
_SECRET_PARTS = ("token", "password", "passwd", "secret", "authorization", "cookie")
_SECRET_PART = re.compile(r"token|passw(?:or)?d|secret|authorization|cookie|api[_-]?key|credential")
#: Keys that are secrets although their name does not say so (TFA codes, OAuth codes).
_SECRET_EXACT = frozenset({"otp", "tfa_code", "code_verifier", "session", "signature"})
#: Words without which no key in a text can name a secret (a cheap test before the regexes).
_HINTS = (*_SECRET_PARTS, "api", "key", "credential", *_SECRET_EXACT)

#: "password": "x", 'token': 'x' (JSON, Python reprs of dicts in exception messages).
_QUOTED = re.compile(r"""(["'])([\w.-]+)\1(\s*:\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
#: access_token=x in query strings and form bodies, password=x in reprs and messages.
_ASSIGNED = re.compile(r"""(?<![\w.-])([\w.-]+)=("[^"]*"|'[^']*'|[^&\s"',;)\]}]*)""")
#: Authorization: Bearer x, Cookie: a=b (header dumps): the rest of the line.
_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization|cookie|set-cookie)(\s*:\s*)[^\r\n]*")
#: Bearer and Basic credentials wherever they appear.
_SCHEME = re.compile(r"(?i)\b(Bearer|Basic)\s+[\w.~+/=-]+")
#: A JSON Web Token in any context (signed-in sessions, reset and invite links).
_JWT = re.compile(r"\beyJ[\w-]+\.[\w-]+\.[\w-]*")
#: The password of a URL: postgresql://user:password@host, https://u:p@hook.example.
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+@")


def is_secret_key(name: str) -> bool:
    """Whether a parameter, header, cookie or field of this name carries a secret."""
    lowered = name.lower()
    return lowered in _SECRET_EXACT or _SECRET_PART.search(lowered) is not None


def mask_query(query: str) -> str:
    """A raw query string with the values of its secret parameters masked; the rest as sent."""
    if not query:
        return query
    parts = []
    for part in query.split("&"):
        key, sep, _value = part.partition("=")
        parts.append(f"{key}={MASK}" if sep and is_secret_key(unquote_plus(key)) else part)
    return "&".join(parts)


def mask_target(target: str) -> str:
    """A request target (path?query) with the secret query parameters masked."""
    path, sep, query = target.partition("?")
    return f"{path}?{mask_query(query)}" if sep else mask_text(path)


def _quoted(match: re.Match[str]) -> str:
    if not is_secret_key(match[2]):
        return match[0]
    quote = match[4][0]
    return f"{match[1]}{match[2]}{match[1]}{match[3]}{quote}{MASK}{quote}"


def _assigned(match: re.Match[str]) -> str:
    return f"{match[1]}={MASK}" if is_secret_key(match[1]) else match[0]


def mask_text(text: str) -> str:
    """Free text (a message, a traceback) with every secret we can recognise masked."""
    lowered = text.lower()
    if any(hint in lowered for hint in _HINTS):
        text = _QUOTED.sub(_quoted, text)
        if "authorization" in lowered or "cookie" in lowered:
            text = _HEADER.sub(rf"\1\2{MASK}", text)
        text = _ASSIGNED.sub(_assigned, text)
    if "bearer" in lowered or "basic" in lowered:
        text = _SCHEME.sub(rf"\1 {MASK}", text)
    if "eyJ" in text:
        text = _JWT.sub(MASK, text)
    if "://" in text and "@" in text:
        text = _USERINFO.sub(rf"\1{MASK}@", text)
    return text


def mask_value(key: str, value: Any) -> Any:
    """A structured log field: masked whole when its key names a secret, else scanned."""
    if is_secret_key(key):
        return MASK
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, dict):
        return {k: mask_value(str(k), v) for k, v in value.items()}
    return value
