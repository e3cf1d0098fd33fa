"""Failures a use case reports to its caller, independent of HTTP."""

from infrastructure.outages import cannot_connect, is_database_unavailable


class NotFound(LookupError):
    """The named thing does not exist."""


class AlreadyExists(Exception):
    """Something with that name or identity already exists."""


class InvalidRequest(ValueError):
    """The request is well-formed but its content is not acceptable."""


class PlatformError(Exception):
    """A failure of the platform API, named by its Directus error code.

    `extensions` travel to the client next to the code; the API maps codes to statuses.
    """

    code = "INTERNAL_SERVER_ERROR"
    default_message = "An unexpected error occurred."
    #: Seconds after which trying again may succeed (sent as `Retry-After`), if known.
    retry_after: int | None = None

    def __init__(self, message: str | None = None, **extensions: object) -> None:
        super().__init__(message or self.default_message)
        self.message = message or self.default_message
        self.extensions = extensions


class Forbidden(PlatformError):
    """No permission, or nothing there: the two are not told apart."""

    code = "FORBIDDEN"
    default_message = "You don't have permission to access this."


class InvalidPayload(PlatformError):
    """The request body is not acceptable."""

    code = "INVALID_PAYLOAD"

    def __init__(self, reason: str) -> None:
        super().__init__(f"Invalid payload. {reason.rstrip('.')}.", reason=reason)


class InvalidQuery(PlatformError):
    """A query parameter is not acceptable."""

    code = "INVALID_QUERY"

    def __init__(self, reason: str) -> None:
        super().__init__(f"Invalid query. {reason.rstrip('.')}.", reason=reason)


class InvalidCredentials(PlatformError):
    """Wrong e-mail, password or token, or a user who may not sign in."""

    code = "INVALID_CREDENTIALS"
    default_message = "Invalid user credentials."


class InvalidOtp(PlatformError):
    """A one-time password is missing or wrong."""

    code = "INVALID_OTP"
    default_message = "Invalid user OTP."


class InvalidToken(PlatformError):
    """A token that is not ours or was tampered with."""

    code = "INVALID_TOKEN"
    default_message = "Invalid token."


class TokenExpired(PlatformError):
    """A token past its lifetime."""

    code = "TOKEN_EXPIRED"
    default_message = "Token expired."


class InvalidProvider(PlatformError):
    """No sign-in provider of that name is configured (or it is switched off)."""

    code = "INVALID_PROVIDER"
    default_message = "Invalid provider."


class InvalidProviderConfig(PlatformError):
    """A configured sign-in provider cannot be used as configured."""

    code = "INVALID_PROVIDER_CONFIG"
    default_message = "Invalid config."


class UserSuspended(PlatformError):
    """The user was suspended."""

    code = "USER_SUSPENDED"
    default_message = "User suspended."


class RecordNotUnique(PlatformError):
    """A value that must be unique is taken."""

    code = "RECORD_NOT_UNIQUE"

    def __init__(self, collection: str, field: str, value: object) -> None:
        super().__init__(
            f'Value "{value}" for field "{field}" in collection "{collection}" has to be unique.',
            collection=collection,
            field=field,
        )


class InvalidForeignKey(PlatformError):
    """A relation's value names no item the caller may link to (an unknown code)."""

    code = "INVALID_FOREIGN_KEY"

    def __init__(self, collection: str, field: str, value: object) -> None:
        super().__init__(
            f'Invalid foreign key "{value}" for field "{field}" in collection "{collection}".',
            collection=collection,
            field=field,
        )


class FailedValidation(PlatformError):
    """A value breaks a validation rule."""

    code = "FAILED_VALIDATION"


class RequestsExceeded(PlatformError):
    """Too many requests; `retry_after` seconds until the next is accepted."""

    code = "REQUESTS_EXCEEDED"

    def __init__(self, retry_after: int, limit: int) -> None:
        super().__init__(
            f"Too many requests, retry after {retry_after}s.", limit=limit, reset=retry_after
        )
        self.retry_after = retry_after


class Unprocessable(PlatformError):
    """The request is understood but would leave the service in a state it refuses."""

    code = "UNPROCESSABLE_CONTENT"

    def __init__(self, reason: str) -> None:
        super().__init__(f"Can't process content. {reason.rstrip('.')}.", reason=reason)


class ServiceUnavailable(PlatformError):
    """A write kept losing races with concurrent writes; trying again will do."""

    code = "SERVICE_UNAVAILABLE"


class DatabaseUnavailable(ServiceUnavailable):
    """The database cannot be reached (stopped, restarting, unreachable): nothing was
    changed by the failed request's last step, and trying again later will do.

    `fresh_connection_may_help` is False when no connection could be had at all (a retry
    now would only wait again), True when one broke in use (the server restarted).
    """

    default_message = "The database is unavailable. Try again shortly."
    retry_after = 5

    def __init__(self, fresh_connection_may_help: bool = False) -> None:
        super().__init__()
        self.fresh_connection_may_help = fresh_connection_may_help


def as_unavailable(exc: BaseException) -> DatabaseUnavailable | None:
    """`exc` as the application's outage error when it says the database is unreachable."""
    if isinstance(exc, DatabaseUnavailable):
        return exc
    if not is_database_unavailable(exc):
        return None
    return DatabaseUnavailable(fresh_connection_may_help=not cannot_connect(exc))
