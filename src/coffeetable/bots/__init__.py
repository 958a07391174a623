"""Bots that play any registered game through the core protocol only."""

from coffeetable.bots.random_bot import RandomBot

BOTS = {"random": RandomBot}

__all__ = ["BOTS", "RandomBot"]
