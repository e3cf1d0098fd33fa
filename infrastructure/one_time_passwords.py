"""Time-based one-time passwords (RFC 6238) for two-factor sign-in, with pyotp."""

import hmac
import time
from datetime import UTC, datetime

import pyotp

#: The issuer name an authenticator app shows next to the code.
ISSUER = "Tracepoint"


def new_secret() -> str:
    """A random base32 secret (160 bits)."""
    return pyotp.random_base32()


def provisioning_url(secret: str, account: str) -> str:
    """The otpauth:// URL an authenticator app reads (as a QR code) to add the account."""
    return pyotp.TOTP(secret).provisioning_uri(name=account, issuer_name=ISSUER)


def valid_otp(secret: str, otp: str) -> bool:
    """Whether `otp` is the code of `secret` now, or of the step before or after, which
    forgives clocks that differ by up to 30 seconds."""
    try:
        return pyotp.TOTP(secret).verify(otp.strip(), valid_window=1)
    except (ValueError, TypeError):
        return False


def matching_step(secret: str, otp: str) -> int | None:
    """The 30-second step whose code `otp` is: now, or the step before or after (clocks
    that differ by up to 30 seconds); None when it is none of them."""
    totp = pyotp.TOTP(secret)
    now = time.time()
    try:
        for offset in (0, -1, 1):
            moment = now + offset * totp.interval
            if hmac.compare_digest(totp.at(moment), otp.strip()):
                return int(totp.timecode(datetime.fromtimestamp(moment, UTC)))
    except (ValueError, TypeError):
        return None
    return None
