"""Sending e-mail: over SMTP when it is configured, else into `.eml` files for a
newcomer to open."""

import uuid
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol

import aiosmtplib


@dataclass(frozen=True)
class Mail:
    """One plain-text message to one recipient."""

    to: str
    subject: str
    text: str


class Mailer(Protocol):
    """Delivers mail; raises when it could not."""

    async def send(self, mail: Mail) -> None:
        """Deliver one message."""
        ...


def _message(mail: Mail, sender: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = mail.to
    message["Subject"] = mail.subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(mail.text, cte=_transfer_encoding(mail.text))
    return message


#: Longest line SMTP carries (RFC 5321), without its CRLF.
_SMTP_LINE = 998


def _transfer_encoding(text: str) -> str | None:
    """7bit (or 8bit) where the lines allow it, so that a link with a long token reaches
    the reader as sent: quoted-printable, the default for lines over 78 characters, would
    break it with soft line breaks and write its `=` as `=3D` for anyone reading the raw
    mail or a client that does not decode it."""
    if any(len(line.encode()) > _SMTP_LINE for line in text.splitlines()):
        return None  # the library's own choice (quoted-printable or base64)
    return "7bit" if text.isascii() else "8bit"


@dataclass(frozen=True)
class SmtpMailer:
    """Sends through an SMTP server (`EMAIL_SMTP_*`)."""

    host: str
    port: int
    sender: str
    user: str | None = None
    password: str | None = None
    #: Implicit TLS (port 465 style); without it STARTTLS is used when the server offers it.
    secure: bool = False
    timeout: float = 30.0

    async def send(self, mail: Mail) -> None:
        """Deliver one message over SMTP."""
        await aiosmtplib.send(
            _message(mail, self.sender),
            hostname=self.host,
            port=self.port,
            username=self.user or None,
            password=self.password or None,
            use_tls=self.secure,
            timeout=self.timeout,
        )


@dataclass(frozen=True)
class FileMailer:
    """Writes each message as an `.eml` file into a folder."""

    folder: Path
    sender: str

    async def send(self, mail: Mail) -> None:
        """Write one message to a new file."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{uuid.uuid4()}.eml"
        path.write_bytes(bytes(_message(mail, self.sender)))
