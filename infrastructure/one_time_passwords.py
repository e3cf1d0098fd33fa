"""Time-based one-time passwords (RFC 6238) for two-factor sign-in, with pyotp."""

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
