"""The mail's parts in-process: SMTP URLs, unsubscribe tokens, the digest's text in every
language (with the invitation kind, which friends will use), the texts' files, "my games"
ordering and the time left, and an invitation mailed through a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import email
import email.policy
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from coffeetable.core.errors import DataError
from coffeetable.server.bus import MemoryBus
from coffeetable.server.mail import (
    LANGUAGES,
    TEXT_DIR,
    Mailer,
    SmtpSettings,
    check_unsubscribe_token,
    digest_message,
    redact,
    unsubscribe_token,
)
from coffeetable.server.notify import Notifier, my_games_json, time_left
from coffeetable.server.storage import GameTable, MailEvent, PlayerTable, Seat, SqlStorage
from tests.server.live import free_port
from tests.server.storage.helpers import open_sql_storage

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def test_smtp_urls() -> None:
    plain = SmtpSettings.from_url("smtp://me%40x.org:p%3Ass@mail.example:587")
    assert (plain.host, plain.port, plain.username, plain.password, plain.implicit_tls) == (
        "mail.example",
        587,
        "me@x.org",
        "p:ss",
        False,
    )
    tls = SmtpSettings.from_url("smtps://mail.example")
    assert tls.port == 465 and tls.implicit_tls and tls.username is None
    assert SmtpSettings.from_url("smtp://localhost").port == 25
    for bad in ("http://mail.example", "smtp://", "mail.example:25", "smtp://h:99999"):
        with pytest.raises(DataError):
            SmtpSettings.from_url(bad)
    assert redact("smtp://u:secret@h:25") == "smtp://u:***@h:25"
    with pytest.raises(DataError) as err:
        SmtpSettings.from_url("ftp://u:secret@h")
    assert "secret" not in str(err.value)


def test_unsubscribe_tokens_are_signed() -> None:
    token = unsubscribe_token("k" * 64, 42)
    assert check_unsubscribe_token("k" * 64, token) == 42
    assert check_unsubscribe_token("j" * 64, token) is None  # another site's key
    forged = "u43." + token.split(".")[1]  # another user, the same signature
    assert check_unsubscribe_token("k" * 64, forged) is None
    for bad in ("", "u42", "u42.", "x42.abc", "u4x.abc", token + "x", "u" + "9" * 40 + ".a"):
        assert check_unsubscribe_token("k" * 64, bad) is None


def _event(kind: str, table: str, **params: Any) -> MailEvent:
    return MailEvent(1, 7, kind, table, {"game": "cafe", **params}, NOW)


def test_a_digest_in_each_language_with_an_invitation() -> None:
    events = [
        _event("your_move", "t1"),
        _event("your_move", "t2", game="coffee-rush"),
        _event("ended", "t3", rank=1, players=2),
        _event("invitation", "t4", by="Zoë", invite="inv-token"),
    ]
    subjects = {}
    for language in LANGUAGES:
        message = digest_message(
            sender="ct@play.example",
            to="ana@example.org",
            name="Ana",
            language=language,
            events=events,
            public_url="https://play.example/",
            token="u7.sig",
        )
        body = message.get_content()
        subjects[language] = message["Subject"]
        assert "https://play.example/#/table/t1" in body
        assert "https://play.example/#/table/t4?invite=inv-token" in body
        assert "Zoë" in body and "Coffee Rush" in body
        assert "https://play.example/#/unsubscribe/u7.sig" in body
        assert "{" not in body  # every placeholder filled
        assert message["List-Unsubscribe"] == (
            "<https://play.example/api/unsubscribe/one-click?token=u7.sig>"
        )
        assert message["Content-Language"] == language
    assert subjects["en"] == "4 things waiting for you at coffeetable"
    assert subjects["pt"] == "4 coisas esperam por você no coffeetable"
    assert subjects["ru"] == "Вас ждут 4 события на coffeetable"  # few
    assert subjects["uk"] == "На вас чекають 4 події на coffeetable"
    single = digest_message(
        sender="s@x",
        to="a@x.org",
        name="Ana",
        language="ru",
        events=[_event("invitation", "t9", by="Bo")],
        public_url="https://p.example",
        token="t",
    )
    assert single["Subject"] == "Bo приглашает вас сыграть в Café"
    many = digest_message(
        sender="s@x",
        to="a@x.org",
        name="Ana",
        language="ru",
        events=[_event("your_move", f"t{i}") for i in range(5)],
        public_url="https://p.example",
        token="t",
    )
    assert many["Subject"] == "Вас ждут 5 событий на coffeetable"  # many
    assert "Ваш ход за 5 столами:" in many.get_content()


def test_the_mail_texts_have_the_same_keys_and_plural_forms() -> None:
    forms = {"en": {"one", "other"}, "pt": {"one", "other"}}
    forms.update({key: {"one", "few", "many"} for key in ("ru", "uk")})
    english = json.loads((TEXT_DIR / "en.json").read_text(encoding="utf-8"))
    for language in LANGUAGES:
        data = json.loads((TEXT_DIR / f"{language}.json").read_text(encoding="utf-8"))
        assert set(data) == set(english), language
        for key, value in data.items():
            if isinstance(english[key], dict):
                assert set(value) == forms[language], (language, key)
            else:
                assert isinstance(value, str) and value.strip(), (language, key)
    assert sorted(p.stem for p in Path(TEXT_DIR).glob("*.json")) == sorted(LANGUAGES)


def _row(
    table_id: str,
    status: str = "running",
    to_move: bool = False,
    clock: dict[str, Any] | None = None,
    turn_since: datetime | None = None,
    created: datetime = NOW,
    finished: datetime | None = None,
) -> PlayerTable:
    table = GameTable(
        id=table_id,
        game="cafe",
        options={},
        seed=1,
        seats=(Seat("human", user_id=1), Seat("human", user_id=2)),
        clock=clock,
        rated=False,
        private=False,
        invite_token=None,
        status=status,  # type: ignore[arg-type]
        version=0,
        created_by=1,
        created_at=created,
        started_at=created if status != "open" else None,
        finished_at=finished,
        result=None,
    )
    return PlayerTable(table, 0, to_move, turn_since)


def test_my_games_order_and_time_left() -> None:
    now = NOW.timestamp()
    realtime = {
        "kind": "realtime",
        "initial": 300,
        "state": {"remaining": [100.0, 200.0], "running": [0], "wall_time": now - 30},
    }
    limited = {"kind": "turn_based", "turn_limit": 86400}
    rows = [
        _row("finished-old", "finished", finished=NOW - timedelta(days=2)),
        _row("open", "open"),
        _row("theirs", created=NOW - timedelta(hours=1)),
        _row(
            "mine-waited-long",
            to_move=True,
            clock={"kind": "turn_based"},
            turn_since=NOW - timedelta(days=3),
        ),
        _row("finished-new", "finished", finished=NOW - timedelta(hours=1)),
        _row(
            "mine-waited-less",
            to_move=True,
            clock={"kind": "turn_based"},
            turn_since=NOW - timedelta(hours=1),
        ),
        _row("mine-limited", to_move=True, clock=limited, turn_since=NOW - timedelta(hours=20)),
        _row("mine-realtime", to_move=True, clock=realtime, turn_since=NOW),
    ]
    out = my_games_json(rows, {1: "Ana", 2: "Bo"}, now=now)
    assert [e["id"] for e in out] == [
        "mine-realtime",  # 70 s left
        "mine-limited",  # 4 h left
        "mine-waited-long",  # no limit: the longest waiting first
        "mine-waited-less",
        "theirs",
        "open",
        "finished-new",
        "finished-old",
    ]
    assert out[0]["time_left"] == pytest.approx(70.0)
    assert out[1]["time_left"] == pytest.approx(4 * 3600)
    assert out[2]["time_left"] is None
    # not running, not to move: no time left; a bank not running stays as stored
    assert time_left(_row("f", "finished", clock=realtime), now) is None
    waiting = _row("w", clock={**realtime, "state": {**realtime["state"], "running": [1]}})
    assert time_left(waiting, now) == pytest.approx(100.0)
    # before the first move: the bank as set, running since the start for the one to move
    fresh = _row(
        "n",
        to_move=True,
        clock={"kind": "realtime", "initial": 300},
        created=NOW - timedelta(seconds=10),
    )
    assert time_left(fresh, now) == pytest.approx(290.0)


class _Sink:
    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)  # type: ignore[arg-type]
        )
        return "250 OK"


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    store = open_sql_storage(f"sqlite:///{tmp_path / 'mail.db'}")
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()


@pytest.mark.anyio
async def test_an_invitation_is_mailed_and_said_on_the_channel(storage: SqlStorage) -> None:
    sink = _Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        bus = MemoryBus()
        heard: list[tuple[str, dict[str, Any]]] = []

        async def listen(topic: str, message: dict[str, Any]) -> None:
            heard.append((topic, message))

        bus.handler = listen
        ana = await storage.create_user("Ana")
        await bus.subscribe(f"user:{ana.id}")
        await storage.save_settings(ana.id, email="ana@example.org", language="pt", prefs={})
        table = await storage.create_table(
            "tinv",
            game="coffee-rush",
            seed=1,
            seats=[Seat("open"), Seat("open")],
            private=True,
            invite_token="tok",
        )
        mailer = Mailer(SmtpSettings.from_url(f"smtp://127.0.0.1:{controller.port}"), "ct@x.org")
        notifier = Notifier(storage, bus, mailer, "https://p.example", mail_delay=0)
        await notifier.invite(ana.id, table, "Bo")
        assert heard == [
            (
                f"user:{ana.id}",
                {"type": "invitation", "table": "tinv", "game": "coffee-rush", "by": "Bo"},
            )
        ]
        assert await notifier.send_due() == 1
        [mail] = sink.messages
        assert mail["Subject"] == "Bo convida você para uma partida de Coffee Rush"
        assert "https://p.example/#/table/tinv?invite=tok" in mail.get_content()
        assert await notifier.send_due() == 0  # sent once
        # the invitation kind turned off: nothing more
        await storage.save_settings(
            ana.id, email="ana@example.org", language="pt", prefs={"mail_invitation": False}
        )
        await notifier.invite(ana.id, table, "Bo")
        assert await storage.mail_due(NOW + timedelta(days=1)) == []
    finally:
        controller.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--smtp", "http://u:s3cret@mail.example"], "--smtp must look like"),
        (["--smtp", "smtp://mail.example"], "--smtp needs --public-url"),
        (["--smtp", "smtp://mail.example", "--public-url", "play.example"], "--public-url must"),
    ],
)
def test_serve_refuses_bad_mail_options(args: list[str], said: str, tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "coffeetable", "serve", "--db", f"sqlite:///{tmp_path}/x.db", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert said in done.stderr and "s3cret" not in done.stderr + done.stdout
    assert not (tmp_path / "x.db").exists()  # refused before anything was made
