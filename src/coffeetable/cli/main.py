"""The `coffeetable` command line: play, sim, inspect, deck check/format, serve, admin.

Every error a user can cause prints one line starting with "error:" and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from coffeetable.cli.games import game_for
from coffeetable.core.errors import CoffeetableError, DataError
from coffeetable.core.registry import game_names

EXIT_USAGE = 2


def _add_common(p: argparse.ArgumentParser, game: bool = True) -> None:
    if game:
        p.add_argument("game", help=f"game name ({', '.join(game_names())})")
    p.add_argument(
        "--deck", metavar="FILE", help="Café: play with this deck file instead of the default"
    )
    p.add_argument(
        "--variant",
        choices=("base", "advanced"),
        help="Café: 'advanced' adds the auction for the master token (2-4 players)",
    )
    p.add_argument("--espresso", action="store_true", help="Café: add the Espresso expansion")
    p.add_argument(
        "--promo",
        action="append",
        metavar="NAME",
        help="Café: shuffle in a promo card (leao, coffee-mine, atlas); repeat for more",
    )
    p.add_argument(
        "--cards",
        metavar="FILE",
        help="Coffee Rush: play with this card file instead of the default",
    )
    p.add_argument(
        "--less-luck",
        action="store_true",
        help="Coffee Rush: the optional less-luck set-up (an Espresso/Ristretto on every counter 1)",
    )


def options_from(args: argparse.Namespace) -> dict[str, Any]:
    """Game options from the command line (only those given)."""
    options: dict[str, Any] = {}
    if args.variant:
        options["variant"] = args.variant
    if args.espresso:
        options["espresso"] = True
    if args.promo:
        options["promos"] = list(args.promo)
    if args.less_luck:
        options["less_luck"] = True
    return options


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors, like every other error of the command line."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="coffeetable", description="Play and study Café and Coffee Rush.")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )

    play = sub.add_parser("play", help="play in the terminal (hotseat and/or against bots)")
    _add_common(play)
    play.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    play.add_argument("--bots", type=int, default=0, help="how many of the last seats bots play")
    play.add_argument(
        "--bot",
        default="random",
        metavar="NAME",
        help="which bot: random (default), greedy, ismcts[:easy|medium|hard]",
    )
    play.add_argument("--seed", type=int, default=None, help="seed for set-up (default: random)")
    play.add_argument("--record", metavar="FILE", help="write the game record here at the end")

    sim = sub.add_parser("sim", help="bot-vs-bot games with statistics")
    _add_common(sim)
    sim.add_argument(
        "--players",
        type=int,
        default=None,
        help="number of players (default: one per --bots, or 2)",
    )
    sim.add_argument(
        "--bots",
        metavar="A,B,...",
        help="one bot per seat: random, greedy[:wWIDTH[sSAMPLES]], ismcts[:easy|medium|hard|SECONDSs|ITERATIONSi] (default: random)",
    )
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--json", action="store_true", help="print the statistics as JSON")

    tournament = sub.add_parser(
        "tournament", help="round-robin between bots: Elo with confidence intervals, mean scores"
    )
    _add_common(tournament)
    tournament.add_argument("--bots", metavar="A,B,...", required=True, help="two or more bots")
    tournament.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    tournament.add_argument("--players", type=int, default=2, help="seats per table (default 2)")
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument(
        "--prior-draws",
        type=float,
        default=1.0,
        help="virtual draws added per pair so that perfect scores stay finite (default 1)",
    )
    tournament.add_argument("--json", action="store_true")

    inspect = sub.add_parser(
        "inspect", help="show a game record or position: moves, scores, result"
    )
    inspect.add_argument("file", help="a game record or position (JSON)")
    inspect.add_argument("--deck", metavar="FILE", help="Café: the deck the game was played with")
    inspect.add_argument(
        "--cards", metavar="FILE", help="Coffee Rush: the card file the game was played with"
    )
    inspect.add_argument("--json", action="store_true")
    inspect.add_argument(
        "--suggest", action="store_true", help="ask a bot for the best move of each seat to move"
    )
    inspect.add_argument(
        "--bot", default="ismcts", metavar="NAME", help="the bot for --suggest (default ismcts)"
    )
    inspect.add_argument(
        "--time", type=float, default=None, metavar="SECONDS", help="--suggest: thinking time"
    )

    review = sub.add_parser(
        "review", help="analyse a finished game move by move: where the points went"
    )
    review.add_argument("file", help="a game record of a finished game (JSON)")
    review.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="the seat to review (repeat; all by default)",
    )
    review.add_argument(
        "--bot",
        default=None,
        metavar="NAME",
        help="the bot whose moves are compared (default ismcts)",
    )
    review.add_argument(
        "--time", type=float, default=None, metavar="SECONDS", help="the bot's time per decision"
    )
    review.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="N",
        help="the bot's iterations per decision (default 60; deterministic for a seed)",
    )
    review.add_argument(
        "--samples",
        type=int,
        default=None,
        metavar="N",
        help="deals of the unseen cards each move is played out on (default 8)",
    )
    review.add_argument("--seed", type=int, default=None, help="the analysis' seed (default 0)")
    review.add_argument("--deck", metavar="FILE", help="Café: the deck the game was played with")
    review.add_argument(
        "--cards", metavar="FILE", help="Coffee Rush: the card file the game was played with"
    )
    review.add_argument("--json", action="store_true", help="the full review as JSON")

    deck = sub.add_parser("deck", help="deck and card files")
    deck_sub = deck.add_subparsers(
        dest="deck_command", required=True, metavar="SUBCOMMAND", parser_class=_Parser
    )
    check = deck_sub.add_parser(
        "check", help="validate a Café deck file or a Coffee Rush card file"
    )
    check.add_argument("file")
    fmt = deck_sub.add_parser(
        "format",
        help="write a Café deck file or a Coffee Rush card file as canonical TOML "
        "(the text the server stores; comments are dropped)",
    )
    fmt.add_argument("file")
    fmt.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")

    serve = sub.add_parser("serve", help="run the online server (web client, API, WebSockets)")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="database: sqlite:///PATH (default: $COFFEETABLE_DB, else coffeetable.db in the "
        "user data folder) or postgresql://USER@HOST:PORT/DB",
    )
    serve.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        help="processes of this node's own pool for bots' searches (default 1; with --redis, "
        "default 0: the decisions go to `coffeetable bot-worker` processes)",
    )
    serve.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="redis://HOST:PORT/DB: this node is one of several serving one site on a shared "
        "PostgreSQL database (docs/deploy.md)",
    )
    serve.add_argument(
        "--secure-cookies",
        action="store_true",
        help="the site is served over HTTPS (behind TLS): Secure session cookie and HSTS",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="address of a proxy (nginx) whose X-Forwarded-For and X-Forwarded-Proto are "
        "believed; repeat for several, or '*' for any (default: nobody's)",
    )
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an origin (https://play.example) whose pages may post and open sockets here; "
        "repeat for several (default: the request's own host)",
    )
    serve.add_argument(
        "--sockets-per-address",
        type=int,
        default=None,
        metavar="N",
        help="open WebSockets per client address on this node (default 32)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a connection has to send a request's headers (default 10)",
    )
    serve.add_argument(
        "--idle-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds an idle kept-alive HTTP connection stays open (default 5)",
    )
    admin = sub.add_parser("admin", help="give or take a site's admin role (reports, suspensions)")
    admin_sub = admin.add_subparsers(
        dest="action", required=True, metavar="ACTION", parser_class=_Parser
    )
    for action, text in (
        ("grant", "make the account NAME an admin"),
        ("revoke", "make the account NAME a player again"),
    ):
        one = admin_sub.add_parser(action, help=text)
        one.add_argument("name", metavar="NAME", help="the account's name")
        _add_db(one)
    _add_db(admin_sub.add_parser("list", help="list the admins"))
    serve.add_argument(
        "--smtp",
        default=None,
        metavar="URL",
        help="send notification mail through this server: smtp://USER:PASSWORD@HOST:PORT "
        "(STARTTLS when offered) or smtps://... (TLS at once); default: no mail",
    )
    serve.add_argument(
        "--smtp-from",
        default=None,
        metavar="ADDRESS",
        help="the mail's From (default: coffeetable <noreply@HOST of --public-url>)",
    )
    serve.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="the site's address as players reach it, for the links in mail "
        "(https://play.example; needed with --smtp)",
    )
    worker = sub.add_parser(
        "bot-worker", help="take bot decisions and hints from a site's Redis queue"
    )
    worker.add_argument("--redis", required=True, metavar="URL", help="the site's redis://...")
    worker.add_argument(
        "--processes", type=int, default=1, help="worker processes (default 1; one per core)"
    )
    selfplay = sub.add_parser(
        "selfplay-worker",
        help="play the games of self-play runs (a learned bot value) and of bot rating runs "
        "from a Redis queue (benchmarks/selfplay.py and bot_elo.py --redis put them there)",
    )
    selfplay.add_argument("--redis", required=True, metavar="URL", help="the queue's redis://...")
    selfplay.add_argument(
        "--processes", type=int, default=1, help="worker processes (default 1; one per core)"
    )
    selfplay.add_argument(
        "--idle-exit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop after this long without a job (default: never)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "play": _play,
        "sim": _sim,
        "tournament": _tournament,
        "inspect": _inspect,
        "review": _review,
        "deck": _deck,
        "serve": _serve,
        "bot-worker": _bot_worker,
        "selfplay-worker": _selfplay_worker,
        "admin": _admin,
    }
    try:
        return handlers[args.command](args)
    except CoffeetableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    import uvicorn

    from coffeetable.server.app import Settings, create_app
    from coffeetable.server.http_limits import header_timeout_protocol
    from coffeetable.server.node import database_guard
    from coffeetable.server.storage import DatabaseURLError, default_database_url, engine_for_url
    from coffeetable.server.websocket_deflate import DeflateWebSocketProtocol

    if not 1 <= args.port <= 65535:
        raise DataError(f"--port must be 1..65535, not {args.port}")
    workers = args.bot_workers if args.bot_workers is not None else (0 if args.redis else 1)
    if workers < (0 if args.redis else 1):
        raise DataError(
            "--bot-workers must be at least 1 (0 only with --redis, for separate bot workers)"
        )
    if args.redis is not None:
        _check_redis_url(args.redis)
    if args.sockets_per_address is not None and args.sockets_per_address < 1:
        raise DataError("--sockets-per-address must be at least 1")
    if not (0 < args.header_timeout <= 3600 and 0 < args.idle_timeout <= 3600):
        raise DataError("--header-timeout and --idle-timeout must be 0..3600 seconds")
    for origin in args.allowed_origin:
        if not origin.startswith(("http://", "https://")) or origin.count("/") != 2:
            raise DataError(
                f"--allowed-origin must be a scheme, host and port like https://play.example, "
                f"not {origin!r}"
            )
    if args.smtp is not None:
        from coffeetable.server.mail import SmtpSettings

        SmtpSettings.from_url(args.smtp)  # DataError with what is wrong
        if not args.public_url:
            raise DataError(
                "--smtp needs --public-url (the site's address, https://play.example), for "
                "the links in the mail"
            )
    if args.public_url is not None and (
        not args.public_url.startswith(("http://", "https://")) or len(args.public_url) > 200
    ):
        raise DataError(
            f"--public-url must be http(s)://HOST[:PORT][/PATH], not {args.public_url!r}"
        )
    url = args.db or default_database_url()
    try:
        engine = engine_for_url(url)  # check the URL before starting
    except DatabaseURLError as exc:
        raise DataError(str(exc)) from None
    shown = engine.url.render_as_string(hide_password=True)
    extra: dict[str, Any] = {}
    if args.sockets_per_address is not None:
        extra["sockets_per_address"] = args.sockets_per_address
    if args.smtp is not None:
        extra.update(smtp_url=args.smtp, smtp_from=args.smtp_from)
    if args.public_url is not None:
        extra["public_url"] = args.public_url
    settings = Settings(
        database_url=url,
        redis_url=args.redis,
        bot_workers=workers,
        tune_gc=True,
        secure_cookies=args.secure_cookies,
        allowed_origins=args.allowed_origin,
        **extra,
    )
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="info",
        ws_max_size=64 * 1024,
        ws=DeflateWebSocketProtocol,  # permessage-deflate with a window an update fits in
        # X-Forwarded-* only from the proxies the operator lists (uvicorn's own default
        # trusts 127.0.0.1, so a forged header from loopback would pick any address)
        proxy_headers=bool(args.trusted_proxy),
        forwarded_allow_ips=args.trusted_proxy or [],
        http=header_timeout_protocol(args.header_timeout),
        timeout_keep_alive=args.idle_timeout,
    )

    # the server's own lines (coffeetable.*): leases taken and lost, clocks run out, errors
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )

    async def run() -> None:
        async with database_guard(url, args.redis):
            site = f" as a node of the site at {_hide_password(args.redis)}" if args.redis else ""
            mail = f", mail through {_hide_password(args.smtp)}" if args.smtp else ""
            print(
                f"coffeetable: serving http://{args.host}:{args.port}/ with database "
                f"{shown}{site}{mail} (Ctrl+C stops it)",
                flush=True,
            )
            await uvicorn.Server(config).serve()

    with asyncio.Runner(loop_factory=_event_loop_factory()) as runner:
        runner.run(run())
    return 0


def _event_loop_factory() -> Callable[[], Any] | None:
    """uvloop's event loop where it is installed (a dependency on Linux and macOS): its
    loop, transports and WebSocket writes cost the server a fraction of asyncio's own per
    move (docs/server.md, "Performance"); else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], Any] = uvloop.new_event_loop
    return factory


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="the site's database (default: $COFFEETABLE_DB, else the user data folder's "
        "coffeetable.db): sqlite:///PATH or postgresql://USER@HOST:PORT/DB",
    )


def _admin(args: argparse.Namespace) -> int:
    from coffeetable.cli import admin

    return admin.run(args)


def _hide_password(url: str) -> str:
    """`url` with its password (if any) as ***, for printing."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


def _check_redis_url(url: str) -> None:
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise DataError(f"--redis must be a redis://HOST:PORT/DB URL, not {_hide_password(url)!r}")


def _bot_worker(args: argparse.Namespace) -> int:
    from coffeetable.server.jobs import run_workers

    _check_redis_url(args.redis)
    if args.processes < 1:
        raise DataError("--processes must be at least 1")
    print(f"coffeetable: bot worker ({args.processes} processes) on {args.redis}", flush=True)
    run_workers(args.redis, args.processes)
    return 0


def _selfplay_worker(args: argparse.Namespace) -> int:
    from coffeetable.bots.selfplay import run_workers

    _check_redis_url(args.redis)
    if args.processes < 1:
        raise DataError("--processes must be at least 1")
    print(f"coffeetable: self-play worker ({args.processes} processes) on {args.redis}", flush=True)
    played = run_workers(args.redis, args.processes, idle_exit=args.idle_exit)
    print(f"coffeetable: {played} self-play and rating games played", flush=True)
    return 0


def _play(args: argparse.Namespace) -> int:
    from coffeetable.cli.play import play

    return play(
        game_for(args.game, args.deck, args.cards),
        args.players,
        args.bots,
        args.seed,
        args.record,
        options_from(args),
        args.bot,
    )


def _bot_list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    bots = [b.strip() for b in text.split(",") if b.strip()]
    if not bots:
        raise DataError("--bots needs bot names separated by commas, e.g. greedy,random")
    return bots


def _sim(args: argparse.Namespace) -> int:
    from coffeetable.cli.sim import format_stats, run_sim

    if args.games < 1:
        raise DataError("--games must be at least 1")
    bots = _bot_list(args.bots)
    players = args.players if args.players is not None else len(bots) if bots else 2
    stats = run_sim(
        game_for(args.game, args.deck, args.cards),
        players,
        args.games,
        args.seed,
        options_from(args),
        bots,
    )
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print(format_stats(stats))
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from coffeetable.bots.tournament import round_robin
    from coffeetable.cli.progress import Progress

    bots = _bot_list(args.bots) or []
    game = game_for(args.game, args.deck, args.cards)
    pairs = len(bots) * (len(bots) - 1) // 2
    bar = Progress(pairs * max(args.games, 0), "games")
    result = round_robin(
        game, bots, args.games, args.seed, options_from(args), args.players, on_game=bar.step
    )
    bar.close()
    data = result.to_json(args.prior_draws)
    data.update(
        game=game.info.name, games_per_pair=args.games, seed=args.seed, players=args.players
    )
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(
        f"round robin of {game.info.name}: {len(bots)} bots, {args.games} games per pair, "
        f"{args.players} seats, seed {args.seed}"
    )
    print("bot                  Elo   ±95%   score  mean points  games")
    for row in sorted(data["bots"], key=lambda r: -r["elo"]):
        print(
            f"{row['bot']:<18} {row['elo']:6.0f} {row['elo_ci95']:6.0f} {row['score_share']:6.1%} "
            f"{row['mean_score']:11.2f} {row['games']:6d}"
        )
    for pair in data["pairs"]:
        print(f"  {pair['a']} {pair['points_a']:g} - {pair['points_b']:g} {pair['b']}")
    return 0


def _review(args: argparse.Namespace) -> int:
    from coffeetable.cli.review import review_file

    return review_file(args)


def _inspect(args: argparse.Namespace) -> int:
    from coffeetable.cli.inspect import inspect_file

    suggest = None
    if args.suggest:
        from coffeetable.bots.base import Limit
        from coffeetable.bots.make import make_bot

        make_bot(args.bot)  # a clear error for an unknown bot
        suggest = (args.bot, Limit(time=args.time) if args.time is not None else None)
    elif args.time is not None or args.bot != "ismcts":
        raise DataError("--bot and --time go with --suggest")
    return inspect_file(args.file, args.deck, args.json, args.cards, suggest)


def _deck(args: argparse.Namespace) -> int:
    """Validate (`check`) or write canonically (`format`) a Café deck or a Coffee Rush card
    file (told apart by their content)."""
    from coffeetable.core.datafile import DataFileError, parse_toml, read_file
    from coffeetable.games.datafiles import game_of

    raw, source = read_file(args.file, "deck file")
    if args.deck_command == "format":
        return _format_deck(args, raw, source)
    try:
        data = parse_toml(raw, source)
    except DataError:
        data = {}  # not TOML: the deck parser reports why
    try:
        return (
            _check_cards(args.file, raw, source)
            if game_of(data) == "coffee-rush"
            else _check_deck(args.file, raw, source)
        )
    except DataFileError as exc:
        print(
            f"error: {exc.source}: invalid {exc.what}, {len(exc.problems)} problem(s):",
            file=sys.stderr,
        )
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return EXIT_USAGE


def _format_deck(args: argparse.Namespace, raw: bytes, source: str) -> int:
    from pathlib import Path

    from coffeetable.core.datafile import parse_toml
    from coffeetable.games.datafiles import game_of, read_model

    data = parse_toml(raw, source)
    reading = read_model(game_of(data), data, source)
    if not reading.text:
        raise DataError(f"{source}: cannot be written as TOML: {reading.problems[0]}")
    if args.output:
        try:
            Path(args.output).write_text(reading.text, encoding="utf-8")
        except OSError as exc:
            raise DataError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(reading.text)
    if reading.problems:
        print(
            f"note: {source} has {len(reading.problems)} problem(s); "
            f"`coffeetable deck check {source}` lists them",
            file=sys.stderr,
        )
    return 0


def _check_cards(path: str, raw: bytes, source: str) -> int:
    from coffeetable.games.coffee_rush.cards import parse_cards

    cards = parse_cards(raw, source)
    verified = sum(d.copies for d in cards.drinks if d.verified)
    special = sum(d.copies for d in cards.drinks if d.special)
    less_luck = sum(d.copies for d in cards.drinks if d.less_luck)
    print(
        f"{path}: valid Coffee Rush card file {cards.name!r} (version {cards.version}): "
        f"{cards.total_cards} order cards of {len(cards.drinks)} drinks ({special} Special Menu, "
        f"{less_luck} for the less-luck set-up; {verified} with verified recipes); "
        f"{sum(cards.box)} ingredient tokens, {cards.rush} rush tokens"
    )
    if less_luck < 4:
        print(f"note: {less_luck} less-luck cards; the less-luck set-up needs one per player")
    return 0


def _check_deck(path: str, raw: bytes, source: str) -> int:
    from coffeetable.games.cafe.deck import parse_deck

    deck = parse_deck(raw, source)
    kinds: dict[str, Any] = {}
    for card in deck.cards:
        kinds[card.kind] = kinds.get(card.kind, 0) + 1
    stars = sum(1 for c in deck.cards if c.star)
    counts = ", ".join(f"{n} {k}" for k, n in kinds.items())
    print(
        f"{path}: valid Café deck {deck.name!r} (version {deck.version}): {counts}; {stars} star cards"
    )
    if "espresso" not in kinds:
        print("note: no espresso cards; the Espresso expansion cannot be played with this deck")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
