"""What the document says of one route: the `Operation` a registry entry holds, and
small builders for its parameters, body and responses."""

from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class Operation:
    """One route's documentation. The path parameters come from the route's path (strings
    unless `path` says otherwise); the family's error answer and sign-in are added."""

    tag: str
    responses: Json
    #: Defaults to the first line of the handler's docstring.
    summary: str = ""
    description: str = ""
    query: tuple[Json, ...] = ()
    path: dict[str, Json] = field(default_factory=dict)
    body: Json | None = None
    #: Answers without sign-in (the platform's sign-in flows, probes, the resolver).
    public: bool = False


def query(name: str, schema: Json | None = None, description: str = "") -> Json:
    """An optional query parameter (a string unless `schema` says otherwise)."""
    parameter: Json = {"name": name, "in": "query", "schema": schema or {"type": "string"}}
    if description:
        parameter["description"] = description
    return parameter


def header(name: str, schema: Json | None = None, description: str = "") -> Json:
    """An optional request header."""
    return {**query(name, schema, description), "in": "header"}


def body(schema: Json, *media_types: str, required: bool = True) -> Json:
    """A request body in one or more media types (JSON when none are named)."""
    return {
        "required": required,
        "content": {media: {"schema": schema} for media in media_types or ("application/json",)},
    }


def answer(
    status: int | str, schema: Json | None = None, *media_types: str, description: str = ""
) -> Json:
    """One response: a body of `schema` in the media types (JSON when none are named),
    or no body when `schema` is None."""
    response: Json = {"description": description or _REASONS.get(str(status), "Answer")}
    if schema is not None:
        media = media_types or ("application/json",)
        response["content"] = {m: {"schema": schema} for m in media}
    return {str(status): response}


def answers(*responses: Json) -> Json:
    """Several responses in one mapping."""
    merged: Json = {}
    for response in responses:
        merged.update(response)
    return merged


_REASONS = {
    "200": "OK",
    "201": "Created",
    "204": "No content",
    "302": "Redirect",
    "303": "Redirect",
    "307": "Redirect",
    "400": "Bad request",
    "401": "Not signed in",
    "403": "Forbidden",
    "404": "Not found",
    "503": "Unavailable",
}
