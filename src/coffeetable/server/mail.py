"""E-mail: the SMTP server given to `serve --smtp`, the digest's text in the user's language,
and the signed unsubscribe links (docs/server.md, "Notifications").

Mail goes through aiosmtplib, an asyncio SMTP client: a send waits on the network without a
thread of its own and without holding up the event loop. (The standard library's smtplib would
need a thread per send: fine too, but aiosmtplib is well kept, typed, and speaks STARTTLS and
implicit TLS the same way.) `smtp://` connects in plain text and upgrades with STARTTLS when
the server offers it; `smtps://` is TLS from the first byte (port 465).

The texts are data (`mailtext/<language>.json`), one file per language, like the web client's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from coffeetable.core.errors import DataError
from coffeetable.server.storage import MailEvent

log = logging.getLogger("coffeetable.server.mail")

#: The languages the mail is written in (those of the web client).
LANGUAGES = ("en", "pt", "ru", "uk")
#: The kinds of mail.
KINDS = ("your_move", "ended", "invitation")
TEXT_DIR = Path(__file__).resolve().parent / "mailtext"


@dataclass(frozen=True)
class SmtpSettings:
    """Where mail goes: `smtp://[user:password@]host[:port]` (STARTTLS when offered) or
    `smtps://...` (TLS at once)."""

    host: str
    port: int
    username: str | None
    password: str | None
    implicit_tls: bool

    @classmethod
    def from_url(cls, url: str) -> SmtpSettings:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise DataError(
                f"--smtp must look like smtp://user:password@host:587 or smtps://host:465, "
                f"not {redact(url)!r}"
            )
        try:
            port = parts.port
        except ValueError:
            raise DataError(f"--smtp has a bad port: {redact(url)!r}") from None
        implicit = parts.scheme == "smtps"
        return cls(
            host=parts.hostname,
            port=port or (465 if implicit else 25),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            implicit_tls=implicit,
        )


def redact(url: str) -> str:
    """The URL without its password (for logs and errors)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


class Mailer:
    """Sends messages through one SMTP server."""

    def __init__(self, settings: SmtpSettings, sender: str) -> None:
        self.settings = settings
        self.sender = sender

    async def send(self, message: EmailMessage) -> None:
        import aiosmtplib

        s = self.settings
        await aiosmtplib.send(
            message,
            hostname=s.host,
            port=s.port,
            username=s.username,
            password=s.password,
            use_tls=s.implicit_tls,
            start_tls=None if not s.implicit_tls else False,  # None: STARTTLS if offered
            timeout=30,
        )


# ==== unsubscribe links ===========================================================================
def unsubscribe_token(secret: str, user_id: int) -> str:
    """A token that turns off every mail of the user: their id, signed with the site's key
    (HMAC-SHA256). It needs no login and never expires; it can do nothing else."""
    payload = f"u{user_id}"
    mac = hmac.new(secret.encode(), f"unsubscribe:{payload}".encode(), hashlib.sha256).digest()
    return f"{payload}.{base64.urlsafe_b64encode(mac[:18]).decode()}"


def check_unsubscribe_token(secret: str, token: str) -> int | None:
    """The user id of a genuine token, else None."""
    if not isinstance(token, str) or len(token) > 100 or token.count(".") != 1:
        return None
    payload, _ = token.split(".")
    digits = payload[1:]
    # ASCII digits only: "²".isdigit() is true, and int("²") fails
    if not payload.startswith("u") or not (digits.isascii() and digits.isdigit()):
        return None
    if len(payload) > 15:
        return None
    if not hmac.compare_digest(unsubscribe_token(secret, int(payload[1:])), token):
        return None
    return int(payload[1:])


# ==== the texts ===================================================================================
@cache
def texts(language: str) -> dict[str, Any]:
    """The mail's strings in `language` (English for one there is none of)."""
    name = language if language in LANGUAGES else "en"
    data: dict[str, Any] = json.loads((TEXT_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _plural(language: str, n: int) -> str:
    """The CLDR plural category of `n` (the forms the text files have)."""
    if language in ("ru", "uk"):
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if language == "pt":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"


def _text(language: str, key: str, **params: Any) -> str:
    strings = texts(language)
    value: Any = strings.get(key)
    if value is None:
        value = texts("en")[key]
    if isinstance(value, dict):
        n = int(params.get("n", 0))
        value = value.get(_plural(language, n)) or value.get("other") or next(iter(value.values()))
    text = str(value)
    for name, param in params.items():
        text = text.replace("{" + name + "}", str(param))
    return text


def digest_message(
    *,
    sender: str,
    to: str,
    name: str,
    language: str,
    events: list[MailEvent],
    public_url: str,
    token: str,
) -> EmailMessage:
    """One mail of everything pending for a user, in their language, with one unsubscribe
    link (in the text, and in List-Unsubscribe for one-click unsubscribing: RFC 8058)."""
    lang = language if language in LANGUAGES else "en"
    base = public_url.rstrip("/")
    moves = [e for e in events if e.kind == "your_move"]
    ended = [e for e in events if e.kind == "ended"]
    invites = [e for e in events if e.kind == "invitation"]
    if len(events) == 1:
        only = events[0]
        subject = _text(lang, f"subject.{only.kind}", game=_game(lang, only), by=_by(only))
    else:
        subject = _text(lang, "subject.digest", n=len(events))
    lines = [_text(lang, "greeting", name=name), ""]
    for title_key, group in (
        ("section.your_move", moves),
        ("section.ended", ended),
        ("section.invitation", invites),
    ):
        if not group:
            continue
        lines.append(_text(lang, title_key, n=len(group)))
        for event in group:
            link = f"{base}/#/table/{quote(event.table_id or '', safe='')}"
            if event.kind == "invitation" and event.params.get("invite"):
                link += f"?invite={quote(str(event.params['invite']), safe='')}"
            line = _text(
                lang,
                f"line.{event.kind}",
                game=_game(lang, event),
                by=_by(event),
                result=_result(lang, event),
            )
            lines.append(f"  - {line}")
            lines.append(f"    {link}")
        lines.append("")
    unsubscribe_page = f"{base}/#/unsubscribe/{quote(token, safe='')}"
    settings_page = f"{base}/#/settings"
    lines += [
        _text(lang, "footer.settings"),
        f"  {settings_page}",
        _text(lang, "footer.unsubscribe"),
        f"  {unsubscribe_page}",
    ]
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = sender
    message["To"] = formataddr((name, to))
    message["Message-ID"] = make_msgid(domain=urlsplit(base).hostname or "localhost")
    message["Auto-Submitted"] = "auto-generated"
    message["List-Unsubscribe"] = f"<{base}/api/unsubscribe/one-click?token={quote(token)}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content("\n".join(lines) + "\n")
    message["Content-Language"] = lang  # after the content, which sets the Content-* headers
    return message


def _game(language: str, event: MailEvent) -> str:
    game = str(event.params.get("game", ""))
    return _text(language, f"game.{game}") if game in ("cafe", "coffee-rush") else game


def _by(event: MailEvent) -> str:
    return str(event.params.get("by") or "")


def _result(language: str, event: MailEvent) -> str:
    if event.kind != "ended":
        return ""
    rank = event.params.get("rank")
    total = event.params.get("players")
    if isinstance(rank, int) and isinstance(total, int):
        return _text(language, "result.rank", rank=rank, n=total)
    return ""
