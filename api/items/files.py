"""`/files` and `/assets`: uploaded files, as Directus serves them.

`/files` lists, reads, changes and deletes file items with the generic collection views;
an upload (`POST /files`) and new bytes for a file (`PATCH /files/<id>`) are
multipart/form-data, and a delete removes the bytes too. `/assets/<id>` serves the bytes
to whoever may read the file's item.
"""

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from aiohttp import BodyPartReader, hdrs, web

from api.items.collection_views import KEY, collection_views
from api.platform.keys import caller, service
from api.platform.requests import item_key, item_query, read_json, search_query
from api.platform.responses import data_response, no_content
from application.items.files import FormPart
from application.service.errors import InvalidPayload
from domain.access.collections import FILES

#: Bytes read from the request per step of an upload.
CHUNK_SIZE = 256 * 1024
_MULTIPART = "multipart/form-data"


def _parts(request: web.Request) -> AsyncIterator[FormPart]:
    """The parts of a multipart/form-data body, one at a time, never all in memory."""
    if request.content_type != _MULTIPART:
        raise InvalidPayload(f"Files are uploaded as {_MULTIPART}, fields before each file")

    async def parts() -> AsyncIterator[FormPart]:
        try:
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    raise InvalidPayload("Nested multipart bodies are not supported")
                yield FormPart(
                    part.name, part.filename, part.headers.get(hdrs.CONTENT_TYPE), _chunks(part)
                )
        except (ValueError, AssertionError) as exc:
            raise InvalidPayload(f"Malformed multipart body: {exc}") from exc

    return parts()


async def _chunks(part: BodyPartReader) -> AsyncIterator[bytes]:
    try:
        while chunk := await part.read_chunk(CHUNK_SIZE):
            yield chunk
    except ValueError as exc:
        raise InvalidPayload(f"Malformed multipart body: {exc}") from exc


def _written(items: list[dict[str, Any]] | None, many: bool) -> web.Response:
    # Directus answers 204 when the caller may write items but not read them back.
    if items is None:
        return no_content()
    return data_response(items if many else (items[0] if items else None))


async def upload(request: web.Request) -> web.Response:
    """`POST /files`: one item per file of the form (a list when there are several)."""
    uploaded = await service(request).items.files.upload(
        caller(request), _parts(request), item_query(request)
    )
    return _written(uploaded.items, uploaded.many)


async def download(request: web.Request) -> web.StreamResponse:
    """`GET /assets/<id>[/<filename>]`: the bytes, inline, or as an attachment with
    `?download`; 403 when the file does not exist or the caller may not read it."""
    found = await service(request).items.files.download(caller(request), request.match_info["key"])
    filename = request.match_info.get("filename") or found.filename
    kind = "attachment" if "download" in request.query else "inline"
    headers = {
        hdrs.CONTENT_TYPE: found.type,
        hdrs.CONTENT_DISPOSITION: _disposition(kind, filename),
        hdrs.CACHE_CONTROL: "private, no-cache",
        "X-Content-Type-Options": "nosniff",
    }
    if found.type != "application/pdf":
        # An uploaded page or SVG opened from here must not run scripts as the API's
        # origin (browsers show PDFs with a viewer that a sandbox would block).
        headers["Content-Security-Policy"] = "sandbox"
    return web.FileResponse(found.path, headers=headers)


def _disposition(kind: str, filename: str) -> str:
    """A Content-Disposition header (RFC 6266): a plain ASCII name and the exact one."""
    plain = "".join(c if " " <= c < "\x7f" and c not in '"\\' else "_" for c in filename)
    value = f'{kind}; filename="{plain}"'
    if plain != filename:
        value += f"; filename*=UTF-8''{quote(filename, safe='')}"
    return value


def add_routes(app: web.Application) -> None:
    """Register `/files` and `/assets`."""
    views = collection_views(FILES.name)

    async def update_one(request: web.Request) -> web.StreamResponse:
        """`PATCH /files/<id>`: new bytes (multipart) or new metadata (JSON)."""
        if request.content_type != _MULTIPART:
            return await views["update_one"](request)
        items = await service(request).items.files.replace(
            caller(request), item_key(request), _parts(request), item_query(request)
        )
        return _written(items, many=False)

    async def delete_one(request: web.Request) -> web.StreamResponse:
        response = await views["delete_one"](request)
        await service(request).items.files.remove_deleted([item_key(request)])
        return response

    async def delete_many(request: web.Request) -> web.StreamResponse:
        named = await _named_keys(request)
        response = await views["delete_many"](request)
        await service(request).items.files.remove_deleted(named)
        return response

    base = f"/{FILES.name}"
    app.router.add_get(base, views["list"])
    app.router.add_route("SEARCH", base, views["search"])
    app.router.add_post(base, upload)
    app.router.add_patch(base, views["update_many"])
    app.router.add_delete(base, delete_many)
    app.router.add_get(base + KEY, views["read"])
    app.router.add_patch(base + KEY, update_one)
    app.router.add_delete(base + KEY, delete_one)
    app.router.add_get("/assets/{key}", download)
    app.router.add_get("/assets/{key}/{filename}", download)


async def _named_keys(request: web.Request) -> list[Any]:
    """The keys a batch delete names (`[keys]`, `{"keys"}` or `{"query"}`), read before
    the generic view deletes them; [] for a body it will refuse anyway."""
    try:
        body = await read_json(request)
    except InvalidPayload:
        return []
    if isinstance(body, list):
        return body
    if not isinstance(body, dict) or ("keys" in body) == ("query" in body):
        return []
    if "keys" in body:
        return body["keys"] if isinstance(body["keys"], list) else []
    query, _ = search_query({"query": body["query"]})
    return await service(request).items.service.keys_matching(caller(request), FILES.name, query)
