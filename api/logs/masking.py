"""Secrets out of log lines: values masked by the name of the key that carries them."""

import re
from typing import Any
from urllib.parse import unquote_plus

MASK = "***"

#: A key whose name contains one of these carries a secret: access_token, refresh_token,
#: signatureToken, a static `token`, password, new_password, client_secret, api_key...
_SECRET_PART = r"token|passw(?:or)?d|secret|authorization|cookie|api[_-]?key|credential"
#: Keys that are secrets although their name does not say so (TFA codes, OAuth codes).
_SECRET_EXACT = {"otp", "tfa_code", "code_verifier", "session", "signature"}
_KEY = rf"[\w.-]*(?:{_SECRET_PART})[\w.-]*|otp|tfa_code|code_verifier"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # "password": "x", 'token': 'x' (JSON, Python reprs of dicts in exception messages).
    (re.compile(rf"""(?i)(["'](?:{_KEY})["']\s*:\s*)(["'])(?:\\.|(?!\2).)*\2"""), rf"\1\2{MASK}\2"),
    # Authorization: Bearer x, Cookie: a=b (header dumps), before the key=value rule.
    (
        re.compile(r"(?i)\b((?:proxy-)?authorization|cookie|set-cookie)(\s*:\s*)[^\r\n]*"),
        rf"\1\2{MASK}",
    ),
    # access_token=x in query strings and form bodies, password=x in reprs and messages.
    (re.compile(rf"""(?i)((?<![\w.-])(?:{_KEY})=)(["']?)[^&\s"',;)\]}}]*\2"""), rf"\1{MASK}"),
    # Bearer and Basic credentials wherever they appear.
    (re.compile(r"(?i)\b(Bearer|Basic)\s+[\w.~+/=-]+"), rf"\1 {MASK}"),
    # A JSON Web Token in any context (signed-in sessions, reset and invite links).
    (re.compile(r"\beyJ[\w-]+\.[\w-]+\.[\w-]*"), MASK),
    # The password of a URL: postgresql://user:password@host, https://u:p@hook.example.
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+@"), rf"\1{MASK}@"),
)


def is_secret_key(name: str) -> bool:
    """Whether a parameter, header, cookie or field of this name carries a secret."""
    lowered = name.lower()
    return lowered in _SECRET_EXACT or re.search(_SECRET_PART, lowered) is not None


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


def mask_text(text: str) -> str:
    """Free text (a message, a traceback) with every secret we can recognise masked."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
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
