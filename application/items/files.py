"""Files: uploads, replacing a file's bytes, downloads and removing the bytes of deleted
files, as Directus's `/files` and `/assets` have them.

A file is an item of the `files` collection plus its bytes in the upload store. Its
metadata is listed, read, changed and deleted like any item (`ItemsService`, with the
caller's permissions); what an upload teaches the service (size, name on disk, who
uploaded it and when) reaches the item in the same write as the client's metadata,
through `FilesRules`. The bytes are streamed to a temporary file first and take their
final name only once the item is stored, so a failed write leaves no file behind.
"""

import asyncio
import contextlib
import mimetypes
import re
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

from application.items.rules import CollectionRules, Item, Related
from application.items.service import ItemsService
from application.service.blocking import BlockingRunner
from application.service.errors import Forbidden, InvalidPayload, PlatformError, ServiceUnavailable
from domain.access.collections import FILES
from domain.access.policies import SYSTEM, Accountability
from domain.collections.coercion import format_datetime
from domain.collections.item_query import ItemQuery
from domain.collections.schema import FieldType
from infrastructure.file_storage import FileStorage, PendingFile, TooLarge

#: The one storage location: the local upload directory.
STORAGE = "local"
#: Largest value of a plain (non-file) form field.
FIELD_LIMIT = 1024 * 1024
_FALLBACK_TYPE = "application/octet-stream"
_EXTENSION = re.compile(r"\.[0-9A-Za-z]{1,16}")
_CHARSET = re.compile(r";\s*charset\s*=\s*\"?([^\";\s]+)\"?", re.IGNORECASE)
_MEDIA_TYPE = re.compile(r"[0-9a-z!#$&^_.+-]+/[0-9a-z!#$&^_.+-]+")


class ContentTooLarge(PlatformError):
    """An upload is larger than the service takes."""

    code = "CONTENT_TOO_LARGE"
    default_message = "Uploaded content is too large."


@dataclass(frozen=True)
class FormPart:
    """One part of a multipart/form-data body: a field (no filename) or a file."""

    name: str | None
    filename: str | None
    #: The part's Content-Type header, parameters included; None when it has none.
    content_type: str | None
    chunks: AsyncIterator[bytes]


@dataclass(frozen=True)
class Uploaded:
    """The items an upload created, as the caller may read them (None: not at all), and
    whether it held several files (the answer is then a list)."""

    items: list[Item] | None
    many: bool


@dataclass(frozen=True)
class Download:
    """What `/assets` serves: the bytes' path, their media type and download name."""

    path: Path
    type: str
    filename: str


class FilesRules(CollectionRules):
    """A file item is made by an upload, and its bytes decide its read-only fields: the
    upload announces them (`expecting`) for its key, and they join that key's write.
    A create that no upload announced is refused."""

    def __init__(self) -> None:
        self._expected: dict[str, Item] = {}

    @contextlib.contextmanager
    def expecting(self, facts: Mapping[str, Item]) -> Iterator[None]:
        """Add these values (by file key) to the writes of those keys, while in the block."""
        self._expected.update(facts)
        try:
            yield
        finally:
            for key in facts:
                self._expected.pop(key, None)

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """There is one storage location."""
        if values.get("storage") not in (None, STORAGE):
            raise InvalidPayload(f'"storage" must be "{STORAGE}"')
        return values

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """The announced values of an upload; no file without one."""
        facts = self._expected.get(str((current if current is not None else values).get("id")))
        if facts is None:
            if current is None:
                raise InvalidPayload("Files are created by uploading them as multipart/form-data")
            return values
        return {**values, **facts}


@dataclass
class _Staged:
    """One uploaded file, written to a temporary file, waiting for its item."""

    key: str
    pending: PendingFile
    payload: Item
    facts: Item
    disk_name: str


class _KeyLocks:
    """One writer at a time per file key in this process, so two uploads of one key never
    swap the values each announced."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, keys: Sequence[str]) -> AsyncIterator[None]:
        ordered = sorted(set(keys))
        for key in ordered:
            lock, users = self._locks.get(key, (asyncio.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        try:
            async with contextlib.AsyncExitStack() as stack:
                for key in ordered:
                    await stack.enter_async_context(self._locks[key][0])
                yield
        finally:
            for key in ordered:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)


class FilesService:
    """The use cases of `/files` and `/assets` beyond the generic item views."""

    def __init__(
        self,
        items: ItemsService,
        storage: FileStorage,
        rules: FilesRules,
        blocking: BlockingRunner,
        *,
        max_upload_bytes: int,
    ) -> None:
        self._items = items
        self._storage = storage
        self._rules = rules
        self._blocking = blocking
        self._limit = max_upload_bytes
        self._locks = _KeyLocks()

    async def upload(
        self, caller: Accountability, parts: AsyncIterator[FormPart], query: ItemQuery
    ) -> Uploaded:
        """Create a file item for each file of a form, all in one write.

        As in Directus, the fields before a file are that file's metadata; `title`
        defaults to one made from the file name, `type` comes from the part's
        Content-Type (or else the name) and `filename_download` is the part's file name.
        """
        if not caller.admin and caller.access(FILES.name, "create") is None:
            raise Forbidden(_no_permission("create"))
        staged: list[_Staged] = []
        try:
            metadata: Item = {}
            async for part in parts:
                if part.filename is None:
                    metadata[_field_name(part)] = _form_value(part.name, await _text(part))
                    continue
                staged.append(await self._stage(caller, part, metadata, key=None))
                metadata = {}
            if metadata:
                raise InvalidPayload("Fields must come before the file they describe")
            if not staged:
                raise InvalidPayload("No files were included in the body")
            keys = [s.key for s in staged]
            async with self._locks.hold(keys):
                with self._rules.expecting({s.key: s.facts for s in staged}):
                    created = await self._items.create(
                        caller, FILES.name, [s.payload for s in staged], query
                    )
                await self._commit(staged, created_keys=keys)
            return Uploaded(created, many=len(staged) > 1)
        finally:
            for s in staged:
                await self._blocking.run(s.pending.discard)

    async def replace(
        self,
        caller: Accountability,
        key: str,
        parts: AsyncIterator[FormPart],
        query: ItemQuery,
    ) -> list[Item] | None:
        """Give a file new bytes (one file, after its fields), under `update` permission;
        the item as the caller may read it, or None."""
        try:
            key = _key(key)
        except InvalidPayload:
            raise Forbidden(_no_permission("update")) from None
        if not await self._items.allows(caller, FILES.name, "update", key):
            raise Forbidden(_no_permission("update"))
        staged: _Staged | None = None
        try:
            metadata: Item = {}
            async for part in parts:
                if part.filename is None:
                    metadata[_field_name(part)] = _form_value(part.name, await _text(part))
                elif staged is not None:
                    raise InvalidPayload("Only one file replaces a file's bytes")
                else:
                    staged = await self._stage(caller, part, metadata, key=key)
                    metadata = {}
            if staged is None:
                raise InvalidPayload("No files were included in the body")
            if metadata:
                raise InvalidPayload("Fields must come before the file they describe")
            async with self._locks.hold([key]):
                with self._rules.expecting({key: staged.facts}):
                    updated = await self._items.update(
                        caller, FILES.name, [key], staged.payload, query
                    )
                await self._commit([staged], created_keys=[])
                await self._blocking.run(self._storage.remove_key, key, staged.disk_name)
            return updated
        finally:
            if staged is not None:
                await self._blocking.run(staged.pending.discard)

    async def store(
        self,
        filename: str,
        media_type: str,
        data: bytes,
        *,
        owner: str | None,
        account: str | None = None,
    ) -> str:
        """Keep bytes the service made (a reservation's export) as a file item, uploaded
        by `owner` and of `account` where there are accounts; the new file's key."""
        key = str(uuid.uuid4())
        now = _now()
        payload: Item = {
            "id": key,
            "type": media_type,
            "filename_download": filename,
            "title": _title(filename),
            "storage": STORAGE,
        }
        if account is not None:
            payload["account"] = account
        # The service's own files are not uploads: the upload limit does not apply.
        pending = await self._blocking.run(self._storage.begin, len(data))
        try:
            await self._blocking.run(pending.write, data)
            disk_name = key + _extension(filename, media_type)
            facts = {
                "uploaded_by": owner,
                "created_on": now,
                "uploaded_on": now,
                "filename_disk": disk_name,
                "filesize": pending.size,
            }
            staged = _Staged(key, pending, payload, facts, disk_name)
            async with self._locks.hold([key]):
                with self._rules.expecting({key: facts}):
                    await self._items.create(SYSTEM, FILES.name, [payload], ItemQuery())
                await self._commit([staged], created_keys=[key])
        finally:
            await self._blocking.run(pending.discard)
        return key

    async def remove_deleted(self, keys: Sequence[Any]) -> None:
        """Remove the bytes of those of these files whose items are gone (call it once a
        delete is stored)."""
        candidates = set()
        for key in keys:
            with contextlib.suppress(InvalidPayload):
                candidates.add(_key(key))
        if not candidates:
            return
        present = await self._items.read_many(
            SYSTEM, FILES.name, ItemQuery(fields=(FILES.primary_key,)), sorted(candidates)
        )
        for key in candidates - {item[FILES.primary_key] for item in present.items}:
            await self._blocking.run(self._storage.remove_key, key)

    async def download(self, caller: Accountability, key: str) -> Download:
        """The bytes of a file the caller may read; Forbidden when it may not, when there
        is no such file, or when its bytes are missing."""
        if not await self._items.allows(caller, FILES.name, "read", key):
            raise Forbidden()
        # As in Directus, reading a file's bytes needs its item, not any of its fields.
        fields = ("filename_disk", "filename_download", "type")
        item = await self._items.read_one(SYSTEM, FILES.name, key, ItemQuery(fields=fields))
        path = None
        if item["filename_disk"]:
            path = await self._blocking.run(self._storage.path, item["filename_disk"])
        if path is None:
            raise Forbidden()
        # `type` can be any text a client wrote; only a media type goes into the header.
        media_type = str(item["type"] or "").strip().lower()
        if not _MEDIA_TYPE.fullmatch(media_type):
            media_type = _FALLBACK_TYPE
        return Download(path, media_type, item["filename_download"] or path.name)

    async def _stage(
        self, caller: Accountability, part: FormPart, metadata: Item, *, key: str | None
    ) -> _Staged:
        """Write a file part to a temporary file; its item's payload and read-only values."""
        filename = part.filename
        if not filename:
            raise InvalidPayload("File is missing filename")
        media_type, charset = _media_type(part.content_type, filename)
        payload = {**metadata, "type": media_type}
        if key is None:
            key = _key(metadata["id"]) if metadata.get("id") is not None else str(uuid.uuid4())
            payload = {
                **payload,
                "id": key,
                "filename_download": filename,
                "title": metadata.get("title") or _title(filename),
                "storage": metadata.get("storage") or STORAGE,
            }
            now = _now()
            facts: Item = {"uploaded_by": caller.user, "created_on": now, "uploaded_on": now}
        else:
            if metadata.get("id") not in (None, key):
                raise InvalidPayload('"id" of a file cannot change')
            now = _now()
            facts = {"modified_by": caller.user, "modified_on": now, "uploaded_on": now}
        pending = await self._blocking.run(self._storage.begin, self._limit)
        try:
            async for chunk in part.chunks:
                await self._blocking.run(pending.write, chunk)
        except TooLarge:
            raise ContentTooLarge() from None
        except BaseException:
            await self._blocking.run(pending.discard)
            raise
        disk_name = key + _extension(filename, media_type)
        facts = {**facts, "filename_disk": disk_name, "filesize": pending.size}
        if charset and "charset" not in metadata:
            facts["charset"] = charset
        return _Staged(key, pending, payload, facts, disk_name)

    async def _commit(self, staged: Sequence[_Staged], *, created_keys: Sequence[str]) -> None:
        """Give stored items' bytes their final names; should that fail, the new items go
        too, so no item is left without its bytes."""
        try:
            for s in staged:
                await self._blocking.run(s.pending.commit, s.disk_name)
        except OSError as exc:
            if created_keys:
                await self._items.delete(SYSTEM, FILES.name, list(created_keys))
                await self.remove_deleted(created_keys)
            raise ServiceUnavailable(f"The file could not be stored: {exc.strerror}") from exc


async def _text(part: FormPart) -> str:
    """A form field's value, at most FIELD_LIMIT bytes of UTF-8."""
    data = bytearray()
    async for chunk in part.chunks:
        data += chunk
        if len(data) > FIELD_LIMIT:
            raise ContentTooLarge()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidPayload(f'Field "{part.name}" is not UTF-8 text') from None


def _field_name(part: FormPart) -> str:
    if not part.name:
        raise InvalidPayload("A form field is missing its name")
    return part.name


def _form_value(name: str | None, text: str) -> Any:
    """A form field's text as its field's type has it (form fields are all text):
    `null`, integers, JSON."""
    if text.strip() == "null":
        return None
    field = FILES.field(name or "")
    if field is None:
        return text
    if field.type is FieldType.INTEGER:
        with contextlib.suppress(ValueError):
            return int(text.strip())
    if field.type is FieldType.JSON:
        with contextlib.suppress(orjson.JSONDecodeError):
            return orjson.loads(text)
    return text


def _media_type(content_type: str | None, filename: str) -> tuple[str, str | None]:
    """The file's media type (the part's, else guessed from its name) and charset."""
    given = (content_type or "").split(";", 1)[0].strip().lower()
    charset = _CHARSET.search(content_type or "")
    if not _MEDIA_TYPE.fullmatch(given) or given == _FALLBACK_TYPE:
        given = mimetypes.guess_type(filename, strict=False)[0] or _FALLBACK_TYPE
    return given, charset.group(1).lower() if charset else None


def _extension(filename: str, media_type: str) -> str:
    """The extension of the name on disk: the file name's, else the media type's."""
    suffix = PurePosixPath(filename.replace("\\", "/")).suffix
    if not _EXTENSION.fullmatch(suffix):
        suffix = mimetypes.guess_extension(media_type, strict=False) or ""
    return suffix.lower() if _EXTENSION.fullmatch(suffix) else ""


def _title(filename: str) -> str:
    """A title from a file name, as Directus makes one: `annual_report-2024.pdf` gives
    `Annual Report 2024`."""
    stem = PurePosixPath(filename.replace("\\", "/")).stem
    words = [w for w in re.split(r"[\s_\-.]+", stem) if w]
    return " ".join(w[:1].upper() + w[1:] for w in words) or filename


def _key(value: Any) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise InvalidPayload('"id" must be a UUID') from None


def _now() -> str:
    return format_datetime(datetime.now(UTC))


def _no_permission(action: str) -> str:
    return (
        f'You don\'t have permission to perform "{action}" for collection "{FILES.name}"'
        " or it does not exist."
    )
