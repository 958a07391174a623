"""Learned value models: data files (NAME-vN.json weights, NAME-vN.toml provenance), read
by coffeetable.bots.learned."""
