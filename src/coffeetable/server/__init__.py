"""The online game server: lobby, tables, real-time play, accounts and ratings."""
