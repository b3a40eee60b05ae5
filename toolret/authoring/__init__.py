"""What a tool author runs on a catalog: the lint, and suggested example requests."""
