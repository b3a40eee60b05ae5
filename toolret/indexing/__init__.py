"""The indexing path: embedding a catalog, publishing it, and asking the worker to."""
