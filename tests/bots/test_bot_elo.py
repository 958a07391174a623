"""benchmarks/bot_elo.py's game file: --out, --resume, --fit-only, --workers (docs/bots.md,
"Bot levels on the rating scale"). The script runs as it is run by hand, in a subprocess,
with the fast bots (random, greedy, ISMCTS at a few iterations) and a few games."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

BOT_ELO = Path(__file__).resolve().parents[2] / "benchmarks" / "bot_elo.py"
FAST = ["coffee-rush", "--bots", "random,greedy", "--seed", "30"]


def this_commit() -> str:
    """The commit a game file written now records: this checkout's (benchmarks/_provenance.py,
    with "+uncommitted" while src/ has changes)."""
    done = subprocess.run(
        [sys.executable, "-c", "import _provenance; print(_provenance.commit())"],
        capture_output=True,
        text=True,
        cwd=BOT_ELO.parent,
        check=True,
    )
    return done.stdout.strip()


def bot_elo(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BOT_ELO), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def games(path: Path) -> list[dict[str, Any]]:
    """The file's records without what may differ between two plays of a game."""
    out = []
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        del record["seconds"], record["commit"]
        out.append(record)
    return sorted(out, key=lambda r: json.dumps(r, sort_keys=True))


def ratings(stdout: str) -> list[str]:
    """The table's lines (a bot, its rating and interval, its games)."""
    return [line for line in stdout.splitlines() if "played as" in line]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A run not stopped: random against greedy, 6 games, each appended to the file."""
    path = tmp_path_factory.mktemp("whole") / "games.jsonl"
    done = bot_elo(*FAST, "--games", "6", "--out", path)
    assert done.returncode == 0, done.stderr
    return path, done.stdout


def test_out_holds_every_game_once_as_a_json_line(whole: tuple[Path, str]) -> None:
    path, stdout = whole
    lines = path.read_text("utf-8").splitlines()
    assert len(lines) == 6 and path.read_text("utf-8").endswith("\n")
    records = [json.loads(line) for line in lines]
    assert [(r["deal"], r["index"], r["seats"]) for r in records] == [
        (30, 0, ["random", "greedy"]),
        (30, 1, ["greedy", "random"]),
        (31, 2, ["random", "greedy"]),
        (31, 3, ["greedy", "random"]),
        (32, 4, ["random", "greedy"]),
        (32, 5, ["greedy", "random"]),
    ]
    for r in records:
        assert r["game"] == "coffee-rush" and r["players"] == 2
        assert r["pair"] == r["played"] == ["random", "greedy"]
        assert r["bot_seeds"] == [r["deal"] * 64 + s * 8 + r["index"] % 2 for s in range(2)]
        assert sum(r["points"]) == 1 and len(r["scores"]) == 2
        assert r["commit"] == this_commit()
    assert ratings(stdout)[1].split()[:3] == ["greedy", "1500", "±"]  # the anchor
    assert "6 games (6-6 a pair" in stdout


def test_resume_plays_only_the_missing_games(whole: tuple[Path, str], tmp_path: Path) -> None:
    path, stdout = whole
    part = tmp_path / "part.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    part.write_text(lines[3] + lines[0], encoding="utf-8")
    done = bot_elo(*FAST, "--games", "6", "--out", part, "--resume")
    assert done.returncode == 0, done.stderr
    assert "2 of this run's 6 games already in" in done.stderr and "4 to play" in done.stderr
    assert done.stderr.count("/4 games") == 4
    assert games(part) == games(path)
    assert part.read_text("utf-8").splitlines(keepends=True)[:2] == [lines[3], lines[0]]
    assert ratings(done.stdout) == ratings(stdout)
    # all there: nothing to play, the file unchanged
    before = part.read_bytes()
    again = bot_elo(*FAST, "--games", "6", "--out", part, "--resume")
    assert again.returncode == 0, again.stderr
    assert "6 of this run's 6 games already in" in again.stderr and "0 to play" in again.stderr
    assert part.read_bytes() == before
    assert ratings(again.stdout) == ratings(stdout)
    # fewer games a pair: every game of the file is fitted, none played
    fewer = bot_elo(*FAST, "--games", "2", "--out", part, "--resume")
    assert "2 of this run's 2 games already" in fewer.stderr
    assert "4 more games of these bots there, used in the fit" in fewer.stderr
    assert ratings(fewer.stdout) == ratings(stdout)


def test_a_killed_run_resumes(whole: tuple[Path, str], tmp_path: Path) -> None:
    """kill -9 while it plays: the file holds whole games (maybe a torn last line), and
    --resume (here with two workers) completes it to the games of a run never stopped."""
    path, stdout = whole
    out = tmp_path / "killed.jsonl"
    run = subprocess.Popen(
        [sys.executable, str(BOT_ELO), *FAST, "--games", "6", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (out.exists() and out.stat().st_size):
        time.sleep(0.005)
    os.kill(run.pid, signal.SIGKILL)
    assert run.wait() == -signal.SIGKILL
    kept = out.read_text("utf-8").count("\n")
    assert 1 <= kept < 6
    done = bot_elo(*FAST, "--games", "6", "--out", out, "--resume", "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert f"{kept} of this run's 6 games already in" in done.stderr
    assert games(out) == games(path)
    assert ratings(done.stdout) == ratings(stdout)


def test_a_torn_last_line_is_skipped_with_a_warning(
    whole: tuple[Path, str], tmp_path: Path
) -> None:
    path, stdout = whole
    torn = tmp_path / "torn.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    torn.write_text("".join(lines[:5]) + lines[5][:40], encoding="utf-8")
    fit = bot_elo(*FAST, "--fit-only", torn)
    assert fit.returncode == 0, fit.stderr
    assert "warning:" in fit.stderr and "line 6 (the last, cut short)" in fit.stderr
    assert "skipped" in fit.stderr and "Traceback" not in fit.stderr
    assert "5 games (5-5 a pair" in fit.stdout
    assert torn.read_text("utf-8").endswith(lines[5][:40])  # --fit-only changes no file
    resumed = bot_elo(*FAST, "--games", "6", "--out", torn, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "dropped from the file" in resumed.stderr and "1 to play" in resumed.stderr
    assert games(torn) == games(path)
    assert ratings(resumed.stdout) == ratings(stdout)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("{not json", "not JSON"),
        ('{"game": "coffee-rush"}', "not a game record: 'players' missing"),
        ("[1, 2]", "not a game record"),
    ],
)
def test_a_corrupt_line_is_a_clear_error(
    whole: tuple[Path, str], tmp_path: Path, line: str, words: str
) -> None:
    path, _ = whole
    bad = tmp_path / "bad.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    bad.write_text(lines[0] + line + "\n" + "".join(lines[1:]), encoding="utf-8")
    before = bad.read_bytes()
    for args in (["--fit-only", bad], ["--games", "6", "--out", bad, "--resume"]):
        done = bot_elo(*FAST, *args)
        assert done.returncode != 0
        assert "Traceback" not in done.stderr
        assert f"{bad}, line 2: {words}" in done.stderr, done.stderr
        assert "games" not in done.stdout
    assert bad.read_bytes() == before


@pytest.mark.slow  # four ISMCTS games in four processes (~16 s idle): CI's slow pass
def test_games_of_another_spec_are_not_mixed_in(tmp_path: Path) -> None:
    """(Plain `ismcts`, not a level: Coffee Rush's levels are recorded as their own bots,
    test_a_level_played_by_another_bot_is_recorded_as_that_bot.)"""
    out = tmp_path / "specs.jsonl"
    bots = ["coffee-rush", "--bots", "greedy,ismcts", "--games", "2"]
    first = bot_elo(*bots, "--stand-in", "ismcts=ismcts:3i", "--out", out)
    assert first.returncode == 0, first.stderr
    second = bot_elo(*bots, "--stand-in", "ismcts=ismcts:4i", "--out", out, "--resume")
    assert second.returncode == 0, second.stderr
    assert "0 of this run's 2 games already" in second.stderr
    assert "games of ismcts played 2 as ismcts:3i are not used" in second.stderr
    assert "(this run: ismcts:4i)" in second.stderr
    assert "2 games (2-2 a pair" in second.stdout
    played = [json.loads(line)["played"][1] for line in out.read_text("utf-8").splitlines()]
    assert played == ["ismcts:3i"] * 2 + ["ismcts:4i"] * 2
    # the file alone cannot say which spec is meant
    fit = bot_elo("coffee-rush", "--bots", "greedy,ismcts", "--fit-only", out)
    assert fit.returncode != 0 and "Traceback" not in fit.stderr
    assert "ismcts:3i (2 games), ismcts:4i (2 games)" in fit.stderr
    assert "choose one with --stand-in ismcts=SPEC" in fit.stderr
    chosen = bot_elo(
        "coffee-rush", "--bots", "greedy,ismcts", "--fit-only", out,
        "--stand-in", "ismcts=ismcts:3i",
    )  # fmt: skip
    assert chosen.returncode == 0, chosen.stderr
    assert "played as ismcts:3i; 2 games" in chosen.stdout
    assert "2 as ismcts:4i are not used" in chosen.stderr


def test_a_level_played_by_another_bot_is_recorded_as_that_bot(tmp_path: Path) -> None:
    """Coffee Rush's easy level is a greedy beam 2 wide (bots/make.py, GAME_LEVELS): its
    games are played and recorded as `greedy:w2`, so that a file's games of the level when
    it was the search (recorded as the search's spec) are never mixed with them."""
    out = tmp_path / "levels.jsonl"
    done = bot_elo("coffee-rush", "--bots", "greedy,ismcts:easy", "--games", "2", "--out", out)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["played"] for r in records] == [["greedy", "greedy:w2"]] * 2
    assert "played as greedy:w2" in done.stdout
    searched = tmp_path / "searched.jsonl"
    searched.write_text(
        out.read_text("utf-8").replace('"greedy:w2"', '"ismcts:260i"'), encoding="utf-8"
    )
    fit = bot_elo("coffee-rush", "--bots", "greedy,ismcts:easy", "--fit-only", searched)
    assert fit.returncode == 0 and "Traceback" not in fit.stderr
    assert "games of ismcts:easy played 2 as ismcts:260i are not used" in fit.stderr


def test_out_does_not_overwrite_a_file_without_resume(
    whole: tuple[Path, str], tmp_path: Path
) -> None:
    path, _ = whole
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    done = bot_elo(*FAST, "--games", "6", "--out", copy)
    assert done.returncode != 0 and "--resume to continue it" in done.stderr
    assert copy.read_bytes() == path.read_bytes()
    for args, words in (
        (["--resume"], "--resume continues the file of --out"),
        (["--fit-only", copy, "--out", copy], "--fit-only plays nothing"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--fit-only", tmp_path / "none.jsonl"], "no such file"),
    ):
        done = bot_elo(*FAST, *args)
        assert done.returncode != 0 and words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_concatenated_files_count_each_game_once(whole: tuple[Path, str], tmp_path: Path) -> None:
    """Two machines' files joined: a game in both counts once."""
    path, stdout = whole
    lines = path.read_text("utf-8").splitlines(keepends=True)
    joined = tmp_path / "joined.jsonl"
    joined.write_text("".join(lines[:4]) + "".join(lines[2:]), encoding="utf-8")
    fit = bot_elo(*FAST, "--fit-only", joined)
    assert fit.returncode == 0, fit.stderr
    assert "2 games are in the file more than once, counted once" in fit.stderr
    assert ratings(fit.stdout) == ratings(stdout)


def test_games_are_played_deal_by_deal_across_the_pairs(tmp_path: Path) -> None:
    """A run stopped early leaves every pair about equally measured, not the first pairs
    complete and the last unplayed."""
    out = tmp_path / "order.jsonl"
    done = bot_elo(
        "coffee-rush", "--bots", "random,greedy,ismcts:easy", "--stand-in",
        "ismcts:easy=random", "--games", "4", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    order = [
        (tuple(json.loads(line)["pair"]), json.loads(line)["index"])
        for line in out.read_text("utf-8").splitlines()
    ]
    pairs = [("random", "greedy"), ("random", "ismcts:easy"), ("greedy", "ismcts:easy")]
    assert order == [(p, g) for first in (0, 2) for p in pairs for g in (first, first + 1)]


def test_machines_share_the_deals(whole: tuple[Path, str], tmp_path: Path) -> None:
    """--seed 30 --games 4 and --seed 32 --games 2, concatenated: the games of --seed 30
    --games 6 (a game's seeds and seats depend on its deal and its index's parity)."""
    _, stdout = whole
    a, b, joined = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "joined.jsonl"
    for out, seed, count in ((a, "30", "4"), (b, "32", "2")):
        done = bot_elo("coffee-rush", "--bots", "random,greedy", "--seed", seed, "--games",
                       count, "--out", out)  # fmt: skip
        assert done.returncode == 0, done.stderr
    joined.write_bytes(a.read_bytes() + b.read_bytes()[:-1])  # its last newline lost
    resumed = bot_elo(*FAST, "--games", "6", "--out", joined, "--resume")
    assert "6 of this run's 6 games already in" in resumed.stderr
    assert ratings(resumed.stdout) == ratings(stdout)
    assert joined.read_bytes() == a.read_bytes() + b.read_bytes()  # ready for appending


def projected(stdout: str) -> dict[int, list[str]]:
    """--project's table: {games a pair: each bot's interval}."""
    lines = [line.split() for line in stdout.splitlines()]
    return {int(t[0]): t[1:] for t in lines if t and all(x.isdigit() for x in t)}


def test_project_the_intervals_of_more_games(whole: tuple[Path, str]) -> None:
    path, _ = whole
    done = bot_elo(*FAST, "--fit-only", path, "--project", "24,96", "--never-wins", "")
    assert done.returncode == 0, done.stderr
    rows = projected(done.stdout)
    assert set(rows) == {6, 24, 96}
    assert [float(x) for x in rows[96]][1] == 0  # greedy, the anchor
    random_6, random_24, random_96 = (float(rows[n][0]) for n in (6, 24, 96))
    assert random_6 > random_24 > random_96 > 0
    assert random_96 == pytest.approx(random_24 / 2, rel=0.1)  # one over sqrt(games)
    # random lost every game: taken to lose every game, its interval does not shrink
    lost = bot_elo(*FAST, "--fit-only", path, "--project", "24,96")
    rows = projected(lost.stdout)
    assert float(rows[96][0]) == pytest.approx(float(rows[24][0]), rel=0.05)


def test_budgets_reports_each_level_on_the_same_positions() -> None:
    done = bot_elo("coffee-rush", "--budgets", "1", "--seed", "4242")
    assert done.returncode == 0, done.stderr
    assert "position 0: " in done.stderr
    (line,) = done.stdout.splitlines()
    assert line.startswith("coffee-rush 2p, 1 positions: median iterations easy ")
    assert "of hard's (medians)" in line


def test_a_run_through_a_redis_queue_plays_the_same_games(
    whole: tuple[Path, str], tmp_path: Path
) -> None:
    """--redis: the games go on the queue, a worker started here (--workers 1) plays them,
    and the file holds the games a local run wrote (docs/bots.md, "Bot levels on the rating
    scale")."""
    from tests.bots.test_selfplay import REDIS_URL, require_redis

    require_redis()
    # a database of its own: the default queue of test_selfplay's worker command is in
    # REDIS_URL's, and a worker takes whichever run's games come (both tests would pass
    # with each other's workers, but each counts its own games)
    url = REDIS_URL.rsplit("/", 1)[0] + "/7"
    path, stdout = whole
    queued = tmp_path / "queued.jsonl"
    done = bot_elo(*FAST, "--games", "6", "--out", queued, "--redis", url, "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert games(queued) == games(path)
    assert ratings(done.stdout) == ratings(stdout)
    assert all(json.loads(line)["commit"] == this_commit() for line in queued.open())


def _queue_keys(client: Any) -> list[bytes]:
    return list(client.scan_iter("coffeetable:selfplay:*"))


def test_a_killed_coordinator_withdraws_its_games(tmp_path: Path) -> None:
    """SIGTERM (kill, a service manager) stops a --redis run as Ctrl-C does: a clear message
    that --resume continues, no traceback, the run's key gone, so a worker drops its games
    unplayed instead of playing them for nothing."""
    import redis

    from coffeetable.bots.selfplay import PREFIX, work
    from tests.bots.test_selfplay import REDIS_URL, require_redis

    require_redis()
    url = REDIS_URL.rsplit("/", 1)[0] + "/7"  # as the queue test above: a database of its own
    client = redis.Redis.from_url(url)
    for key in _queue_keys(client):
        client.delete(key)
    out = tmp_path / "games.jsonl"
    command = [sys.executable, str(BOT_ELO), *FAST, "--games", "4", "--out", str(out)]
    run = subprocess.Popen(
        [*command, "--redis", url, "--workers", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not client.exists(f"{PREFIX}:jobs") or client.xlen(f"{PREFIX}:jobs") < 4:
            assert time.monotonic() < deadline and run.poll() is None, run.communicate()
            time.sleep(0.02)
        assert [k for k in _queue_keys(client) if b":run:" in k]  # the run is on
        run.send_signal(signal.SIGTERM)
        _, stderr = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 1, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().endswith(f"stopped; --resume continues {out}")
    assert not [k for k in _queue_keys(client) if b":run:" in k]
    assert work(url, PREFIX, idle_exit=0.5) == 0  # its games dropped, none played
    assert client.xlen(f"{PREFIX}:jobs") == 0
    for key in _queue_keys(client):
        client.delete(key)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["--redis", "http://example", "--games", "2"],
            "--redis must be a redis://HOST:PORT/DB URL",
        ),
        (["--workers", "0", "--games", "2"], "--workers must be at least 1 (0 with --redis)"),
        (["--redis", "redis://x", "--fit-only", "f.jsonl"], "--redis plays games"),
    ],
)
def test_redis_arguments_are_checked(args: list[str], error: str) -> None:
    done = bot_elo(*FAST, *args)
    assert done.returncode != 0 and error in done.stderr


def test_a_queue_that_does_not_answer_is_a_clear_error(tmp_path: Path) -> None:
    """No Redis at --redis's address: a clear error, no traceback, nothing written."""
    out = tmp_path / "games.jsonl"
    done = bot_elo(*FAST, "--games", "2", "--out", out, "--redis", "redis://127.0.0.1:1/0")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "error: the queue at redis://127.0.0.1:1/0" in done.stderr
    assert f"--resume continues {out}" in done.stderr
    assert not out.exists() or not out.read_text("utf-8")


def test_the_report_gives_each_pairs_share_and_margin(whole: tuple[Path, str]) -> None:
    path, stdout = whole
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    margins = []
    for r in records:  # random's score less greedy's, seat by seat
        by = dict(zip(r["seats"], r["scores"], strict=True))
        margins.append(by["random"] - by["greedy"])
    assert "pairs: the first bot's share of the points (95 % Wilson), its mean margin" in stdout
    line = f"  random against greedy: 6 games, 0.000 (0.00-0.39), {sum(margins) / 6:+.2f}"
    assert line in stdout.splitlines(), stdout


def test_the_report_pairs_two_bots_games_against_a_third(tmp_path: Path) -> None:
    """Greedy and easy (a wider greedy beam) each against random on the same deals and seats:
    the report compares them game by game, the figures computed here from the file."""
    path = tmp_path / "games.jsonl"
    done = bot_elo(*FAST, "--bots", "random,greedy,ismcts:easy", "--games", "4", "--out", path)
    assert done.returncode == 0, done.stderr
    against_random: dict[str, dict[tuple[int, int], tuple[float, int]]] = {}
    for line in path.read_text("utf-8").splitlines():
        r = json.loads(line)
        if "random" not in r["pair"]:
            continue
        bot = next(b for b in r["pair"] if b != "random")
        seat = r["seats"].index(bot)
        share = r["points"][r["pair"].index(bot)]
        margin = r["scores"][seat] - r["scores"][1 - seat]
        against_random.setdefault(bot, {})[r["deal"], seat] = (share, margin)
    greedy, easy = against_random["greedy"], against_random["ismcts:easy"]
    assert sorted(greedy) == sorted(easy) and len(greedy) == 4  # deals 30-31, both seats
    points = [easy[k][0] - greedy[k][0] for k in greedy]
    margins = [easy[k][1] - greedy[k][1] for k in greedy]

    def mean_se(values: list[float]) -> tuple[float, float]:
        n = len(values)
        mean = sum(values) / n
        return mean, (sum((v - mean) ** 2 for v in values) / (n - 1) / n) ** 0.5

    (points_mean, points_se), (margin_mean, margin_se) = mean_se(points), mean_se(margins)
    lines = done.stdout.splitlines()
    assert any(line.startswith("paired: the same deals and seats") for line in lines)
    expected = (
        "  ismcts:easy rather than greedy against random: 4 games (deals 30-31), points "
        f"{points_mean:+.3f} ± {points_se:.3f} a game, margin {margin_mean:+.2f} ± "
        f"{margin_se:.2f}; better in {sum(m > 0 for m in margins)}, worse in "
        f"{sum(m < 0 for m in margins)}, the same in {sum(m == 0 for m in margins)}"
    )
    assert expected in lines, done.stdout
