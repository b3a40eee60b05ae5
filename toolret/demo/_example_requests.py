"""Example requests per tool, in English, Arabic and Turkish: what a tool's author attaches.

They are package data, ``examples.toml`` beside this module: ``{tool: {language: [request]}}``.

Written apart from the eval cases (``evals.data.cases``), with different records, fields and
situations, so the eval measures generalisation rather than recall of its own questions; a test
rejects any example that equals or nearly equals a case. Core tools have none: they are always
bound and never ranked.

Write an example around the intent (the verb and the kind of record), not around particular
records: an example such as "show the last comment on unit 12" attracts every request that
mentions unit 12, whatever it asks for, and pushes the right tool down.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files

__all__ = ["EXAMPLES"]


def _load() -> dict[str, dict[str, tuple[str, ...]]]:
    data = tomllib.loads(files(__package__).joinpath("examples.toml").read_text("utf-8"))
    return {tool: {lang: tuple(texts) for lang, texts in by.items()} for tool, by in data.items()}


EXAMPLES: dict[str, dict[str, tuple[str, ...]]] = _load()
"""Per non-core tool, per language, its example requests."""
