"""The bootstrap admin's generated credentials, kept in a file only the service's user
can read until the admin first signs in, so that they survive a scrolled-away terminal."""

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CredentialsFile:
    """A 0600 text file of `key: value` lines; gone once the admin has signed in."""

    path: Path

    def write(self, lines: dict[str, str]) -> None:
        """Write the file afresh, readable by this user only from its first byte."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(
                "# Tracepoint's bootstrap admin. This file is deleted when the admin "
                "first signs in with the password.\n"
            )
            file.writelines(f"{key}: {value}\n" for key, value in lines.items())

    def exists(self) -> bool:
        """Whether the credentials still wait for the admin's first sign-in."""
        return self.path.is_file()

    def read(self) -> dict[str, str]:
        """The file's `key: value` lines (empty when it is gone)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        pairs = (line.partition(": ") for line in text.splitlines() if not line.startswith("#"))
        return {key: value for key, sep, value in pairs if sep}

    def discard(self) -> None:
        """Delete the file (the admin has signed in); nothing happens when it is gone."""
        self.path.unlink(missing_ok=True)
