"""The errors of the query language: an invalid query (400) and a forbidden field (403)."""


class QueryError(ValueError):
    """A malformed or invalid query: 400 INVALID_QUERY (the message omits "Invalid query.")."""


class FieldForbidden(Exception):
    """A field that does not exist or may not be read: 403 FORBIDDEN."""

    def __init__(self, field: str, collection: str) -> None:
        super().__init__(
            f'You don\'t have permission to access field "{field}" in collection'
            f' "{collection}" or it does not exist.'
        )
        self.field = field
        self.collection = collection
