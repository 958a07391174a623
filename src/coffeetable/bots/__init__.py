"""Bots that play any registered game through the core protocol (docs/bots.md)."""

from coffeetable.bots.base import LEVELS, Bot, Limit
from coffeetable.bots.greedy import GreedyBot
from coffeetable.bots.ismcts import IsmctsBot
from coffeetable.bots.make import BOT_NAMES, make_bot, parse_level
from coffeetable.bots.random_bot import RandomBot

__all__ = [
    "BOT_NAMES",
    "LEVELS",
    "Bot",
    "GreedyBot",
    "IsmctsBot",
    "Limit",
    "RandomBot",
    "make_bot",
    "parse_level",
]
