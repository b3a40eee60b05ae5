"""Redis fixtures: a real redis-server process once per run."""
