"""Data files of the bots: the levels' published ratings (bot-ratings.json)."""
