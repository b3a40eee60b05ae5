"""The roster eval: recall and narrowing per language and mode, its report, and the CI gate."""
