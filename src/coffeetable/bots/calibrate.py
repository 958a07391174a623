"""Deck calibration: bots play a deck and its balance figures are measured, the figures of
docs/cafe-deck-design.md ("Calibration measurements"): for a Café deck, how often each card
is picked when it is on display (the "no dominant card" rule: at most 3x the median rate),
the mean final score of the seats that took it, and the share of games where some final
area has no shop left (rule: under 10 %); for any game, the mean score and its spread.

`benchmarks/bots_strength.py cards` prints these figures; the server runs a bounded
calibration of a player's deck on its bot workers (`calibrate`).
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

from coffeetable.bots import make_bot
from coffeetable.core.game import Game

#: The dominant-card rule: no card picked more than this many times the median rate.
DOMINANT_RATIO = 3.0
#: The shop-free rule: under this share of games with an area without a shop left.
SHOP_FREE_LIMIT = 0.10


def play_one(game: Game, bot: str, players: int, seed: int) -> dict[str, Any]:
    """One game of `bot` in every seat: the scores, and for Café the cards each seat took,
    every card on display at each pick, and each final area's shops."""
    state = game.new_initial_state(players, seed)
    bots = [make_bot(bot, seed * 16 + s) for s in range(players)]
    cafe = game.info.name == "cafe"
    taken: list[list[str]] = [[] for _ in range(players)]
    offered: list[str] = []  # every card on display at each pick, once per pick
    picked: list[str] = []
    moves = 0
    while not state.is_over():
        seat = min(state.current_seats())
        display = list(state.display) if cafe else []  # type: ignore[attr-defined]
        action, _ = bots[seat].choose(state, seat)
        text = state.apply(seat, action).notation()
        moves += 1
        if cafe and text.startswith("take "):
            card = text.split()[1]
            taken[seat].append(card)
            offered.extend(display)
            picked.append(card)
    out: dict[str, Any] = {"scores": [s.total for s in state.scores()], "moves": moves}
    if cafe:
        areas = [player.area for player in state.players]  # type: ignore[attr-defined]
        out.update(
            taken=taken,
            offered=offered,
            picked=picked,
            shops_visible=[sum(1 for shop in a.shops if shop.available) for a in areas],
            shops_complete=[sum(1 for shop in a.shops if shop.complete) for a in areas],
        )
    return out


def figures(results: list[dict[str, Any]], bot: str, players: int) -> dict[str, Any]:
    """The calibration figures of games played by `play_one` (JSON)."""
    scores = [x for r in results for x in r["scores"]]
    mean = statistics.fmean(scores) if scores else 0.0
    out: dict[str, Any] = {
        "bot": bot,
        "players": players,
        "games": len(results),
        "mean_score": round(mean, 2),
        "score_stdev": round(statistics.pstdev(scores), 2) if len(scores) > 1 else 0.0,
        "mean_moves": round(statistics.fmean(r["moves"] for r in results), 1) if results else 0,
    }
    if not results or "taken" not in results[0]:
        return out
    by_card: dict[str, list[int]] = {}
    for r in results:
        for seat, cards_taken in enumerate(r["taken"]):
            for card in cards_taken:
                by_card.setdefault(card, []).append(r["scores"][seat])
    offered = Counter(card for r in results for card in r["offered"])
    picked = Counter(card for r in results for card in r["picked"])
    rate = {card: picked[card] / n for card, n in offered.items()}
    median_rate = statistics.median(rate.values()) if rate else 0.0
    top = max(rate, key=lambda c: rate[c]) if rate else None
    ratio = rate[top] / max(median_rate, 1e-9) if top is not None else 0.0
    shop_free = sum(1 for r in results if min(r["shops_visible"]) == 0) / len(results)
    no_complete = sum(1 for r in results if min(r["shops_complete"]) == 0) / len(results)
    out.update(
        shop_free_share=round(shop_free, 3),
        shop_free_holds=shop_free < SHOP_FREE_LIMIT,
        no_completed_shop_share=round(no_complete, 3),
        median_pick_rate=round(median_rate, 3),
        top_card=top,
        top_pick_rate=round(rate[top], 3) if top is not None else 0.0,
        top_ratio=round(ratio, 2),
        no_dominant_card_holds=ratio <= DOMINANT_RATIO,
        cards=[
            {
                "card": card,
                "offered": offered[card],
                "picked": picked[card],
                "rate": round(rate.get(card, 0.0), 3),
                "takers_mean": round(statistics.fmean(s), 2),
                "difference": round(statistics.fmean(s) - mean, 2),
            }
            for card, s in sorted(by_card.items(), key=lambda kv: -statistics.fmean(kv[1]))
        ],
    )
    return out


def calibrate(
    game: Game,
    bot: str = "greedy",
    players: int = 2,
    games: int = 20,
    seed: int = 1000,
    time_limit: float | None = None,
) -> dict[str, Any]:
    """Play up to `games` games (seeded `seed`, `seed + 1`, ...) and measure them; a
    `time_limit` in seconds stops after the game that passes it (`games` then says how
    many were played)."""
    start = time.monotonic()
    results = []
    for g in range(games):
        results.append(play_one(game, bot, players, seed + g))
        if time_limit is not None and time.monotonic() - start > time_limit:
            break
    out = figures(results, bot, players)
    out["seconds"] = round(time.monotonic() - start, 1)
    return out
