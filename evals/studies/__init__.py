"""Studies on our own cases: learning, the lint threshold, long messages, cache stability."""
