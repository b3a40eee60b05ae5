"""Benchmarks of the request path, reindexing, faults and load (``make bench``)."""
