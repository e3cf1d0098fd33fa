"""The bytes of uploaded files, on the local disk under one directory.

An upload is written to a temporary file in that directory and renamed to its final
name only when it is complete, so a file under a final name is never half-written. A
file's final name starts with the key of its item (`<key>.pdf`), so everything kept for
an item can be found and removed by its key.
"""

import os
import re
import tempfile
from pathlib import Path

#: Temporary files start with this; no final name does (final names start with a key).
_TEMPORARY_PREFIX = ".upload-"
_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]*")


class TooLarge(Exception):
    """An upload went past its size limit; what was written of it is gone."""


class PendingFile:
    """An upload being written: `write` its chunks, then `commit` it under its final name
    or `discard` it. Not safe for concurrent use."""

    def __init__(self, root: Path, limit: int) -> None:
        self._root = root
        self._limit = limit
        handle, name = tempfile.mkstemp(prefix=_TEMPORARY_PREFIX, suffix=".tmp", dir=root)
        self._file = os.fdopen(handle, "wb")
        self._path = Path(name)
        self.size = 0

    def write(self, chunk: bytes) -> None:
        """Append a chunk; TooLarge (and the file discarded) past the limit."""
        self.size += len(chunk)
        if self.size > self._limit:
            self.discard()
            raise TooLarge(f"more than {self._limit} bytes")
        self._file.write(chunk)

    def commit(self, name: str) -> None:
        """Make the complete file durable and give it its final name (replacing a file
        of that name at once)."""
        target = self._root / _checked(name)
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._path, target)

    def discard(self) -> None:
        """Throw the upload away (nothing happens when it is already gone)."""
        if not self._file.closed:
            self._file.close()
        self._path.unlink(missing_ok=True)


class FileStorage:
    """Uploaded files in one directory, created on the first upload."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def begin(self, limit: int) -> PendingFile:
        """A new upload of at most `limit` bytes."""
        self._root.mkdir(parents=True, exist_ok=True)
        return PendingFile(self._root, limit)

    def path(self, name: str) -> Path | None:
        """Where the file of this final name is, or None when there is none."""
        path = self._root / _checked(name)
        return path if path.is_file() else None

    def remove_key(self, key: str, keep: str | None = None) -> None:
        """Remove every file kept for the item with this key (`<key>` and `<key>.*`),
        except the one named `keep`."""
        if not self._root.is_dir():
            return
        for entry in os.scandir(self._root):
            name = entry.name
            if (name == key or name.startswith(key + ".")) and name != keep:
                Path(entry.path).unlink(missing_ok=True)


def _checked(name: str) -> str:
    """A final name: one path segment that is not hidden and not a temporary file's."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a stored file's name: {name!r}")
    return name
