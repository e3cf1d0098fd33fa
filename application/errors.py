"""Failures a use case reports to its caller, independent of HTTP."""


class NotFound(LookupError):
    """The named thing does not exist."""


class AlreadyExists(Exception):
    """Something with that name or identity already exists."""


class InvalidRequest(ValueError):
    """The request is well-formed but its content is not acceptable."""
