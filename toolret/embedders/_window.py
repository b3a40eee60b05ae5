"""Input windows: how much of a text an embedder reads, and how a text is cut to fit.

Every text is cut to its embedder's window before it is embedded (bounded work per request), so
a pasted email or log costs one window, not its length, and cannot hold the model up for the
messages behind it.

- **Documents** (tool descriptions) are cut to the model's whole window, keeping their head.
- **Queries** (a user's message) are cut shorter, to ``QUERY_TOKENS``, keeping their head and
  their tail. Both numbers were chosen on the eval's long-message study (``python -m
  evals.studies.truncation``): each eval case set inside a quoted email thread or a pasted log,
  before and after the request. A request sits at the top of a reply or at the end of a paste; a
  short head-and-tail window finds it in both and is not drowned by the text around it.

An embedder declares its window as an ``input_window`` attribute (an ``InputWindow``). One that
counts tokens itself (the bundled model) is first cut in characters to a safe upper bound, then
cuts in tokens on its own thread. One that cannot count tokens (Gemini) is cut in characters at
``CHARS_PER_TOKEN``. An embedder that declares nothing gets ``DEFAULT_WINDOW``, so a custom
embedder is bounded too.

``window_cuts`` says which texts an embedder does not read whole (``toolret lint`` reports tool
descriptions that lose their tail this way).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from toolret._tool import Role

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_WINDOW",
    "MAX_CHARS_PER_TOKEN",
    "QUERY_KEEP",
    "QUERY_TOKENS",
    "InputWindow",
    "Keep",
    "clean",
    "clip",
    "fit",
    "window_cuts",
    "window_of",
]

Keep = Literal["head", "tail", "head_tail"]
"""What to keep of a text longer than its window: its start, its end, or half of each."""

QUERY_TOKENS = 96
"""Queries are cut to this many tokens (special tokens included), or the model's window if
smaller: a short head-and-tail window finds the request in a pasted text and is not drowned by
it. Chosen on the tuning half: docs/decisions.md, "The query window"."""
QUERY_KEEP: Keep = "head_tail"
"""What a long query keeps; see ``QUERY_TOKENS``."""
DOCUMENT_KEEP: Keep = "head"
"""A tool description's first lines carry its name and purpose."""
CHARS_PER_TOKEN = 3.0
"""Characters per token assumed where no tokenizer is at hand. English, Turkish and the tool
descriptions run at about 4 characters per token with the bundled model's tokenizer, Arabic at
about 3; assuming 3 keeps such texts inside the window. Text in scripts that tokenize denser
(Chinese, Japanese, emoji) can run over, and is then cut by the provider, if at all."""
MAX_CHARS_PER_TOKEN = 8
"""For an embedder that counts tokens itself, the characters kept before it counts: no real
text runs longer than this per token, so the exact cut that follows loses nothing, and counting
a 64 KB message costs what counting 8 characters per token of window does."""
SEPARATOR = " … "
"""Joins the head and the tail of a text cut with ``head_tail``."""


@dataclass(frozen=True)
class InputWindow:
    """How much text an embedder reads.

    ``tokens`` is the model's input limit, special tokens included; documents are cut to it.
    Queries are cut to ``min(query_tokens, tokens)`` keeping ``query_keep``. ``counts_tokens``
    says the embedder cuts in tokens itself; toolret then cuts characters only to a safe upper
    bound (``MAX_CHARS_PER_TOKEN``), otherwise to an estimate (``CHARS_PER_TOKEN``).
    """

    tokens: int
    query_tokens: int = QUERY_TOKENS
    query_keep: Keep = QUERY_KEEP
    counts_tokens: bool = False

    def __post_init__(self) -> None:
        if self.tokens < 1 or self.query_tokens < 1:
            raise ValueError("an input window needs tokens >= 1 and query_tokens >= 1")
        if self.query_keep not in ("head", "tail", "head_tail"):
            raise ValueError(f"query_keep must be head, tail or head_tail, not {self.query_keep!r}")

    def limit(self, role: Role) -> int:
        """Tokens a text in ``role`` is cut to."""
        return min(self.query_tokens, self.tokens) if role == "query" else self.tokens

    def keep(self, role: Role) -> Keep:
        """What a text in ``role`` keeps when it is cut."""
        return self.query_keep if role == "query" else DOCUMENT_KEEP

    def chars(self, role: Role) -> int:
        """Characters a text in ``role`` is cut to before any token count."""
        per_token = MAX_CHARS_PER_TOKEN if self.counts_tokens else CHARS_PER_TOKEN
        return int(self.limit(role) * per_token)

    def cut(self, text: str, role: Role) -> str:
        """``text`` cut in characters to this window, and cleaned."""
        return clean(clip(text, self.chars(role), self.keep(role)))


DEFAULT_WINDOW = InputWindow(tokens=512)
"""The window of an embedder that declares none: 512 tokens, the common limit of local models
(BERT, E5, MiniLM), estimated in characters."""


def window_of(embedder: object) -> InputWindow:
    """The embedder's declared ``input_window``, or ``DEFAULT_WINDOW``."""
    window = getattr(embedder, "input_window", None)
    return window if isinstance(window, InputWindow) else DEFAULT_WINDOW


async def window_cuts(embedder: object, texts: Sequence[str], role: Role) -> list[str | None]:
    """For each text, None when ``embedder`` reads all of it, else the part it reads.

    An embedder that counts tokens may answer itself with an ``async def window_cuts(texts,
    role)`` method, in its own tokens, as it cuts when it embeds (the bundled model does). For
    any other, the text is measured against its window at ``CHARS_PER_TOKEN`` characters a
    token: exactly how an embedder that does not count tokens is cut, an estimate otherwise.
    Pass the embedder itself, not a wrapper around it.
    """
    own = getattr(embedder, "window_cuts", None)
    if callable(own):
        answer: list[str | None] = await own(texts, role)
        return answer
    window = window_of(embedder)
    chars = int(window.limit(role) * CHARS_PER_TOKEN)
    keep = window.keep(role)
    return [None if len(text) <= chars else clean(clip(text, chars, keep)) for text in texts]


_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def clean(text: str) -> str:
    """``text`` with what no model API can carry made harmless: control characters (other than
    tab, newline and carriage return) become spaces, lone surrogates U+FFFD.

    Messages come from users and cannot be rejected; a NUL would end the text early in the
    bundled model, and a lone surrogate cannot be encoded as UTF-8 at all.
    """
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda match: "\ufffd" if match[0] >= "\ud800" else " ", text)


def clip(text: str, chars: int, keep: Keep) -> str:
    """At most ``chars`` characters of ``text`` (plus the separator for ``head_tail``).

    Idempotent: clipping a clipped text to the same length returns it unchanged.
    """
    if len(text) <= chars:
        return text
    if chars <= 0:
        return ""
    if keep == "head":
        return text[:chars]
    if keep == "tail":
        return text[-chars:]
    head, tail = (chars + 1) // 2, chars // 2
    return text[:head] + SEPARATOR + (text[-tail:] if tail else "")


def fit(text: str, tokens: int, keep: Keep, count: Callable[[str], int]) -> str:
    """The longest cut of ``text`` (to within a few per cent) that ``count`` puts at no more
    than ``tokens``, keeping ``keep``.

    ``count`` counts a text's tokens as the model feeds them (prefix and special tokens
    included). Tokens grow about linearly with characters, so each try scales the length by the
    tokens still over; two counts are usual.
    """
    used = count(text)
    if used <= tokens:
        return text
    overhead = count("")
    chars = len(text)
    while chars > 0:
        room = max(tokens - overhead, 0)
        chars = min(chars - 1, int(chars * room / max(used - overhead, 1) * 0.97))
        candidate = clip(text, chars, keep)
        used = count(candidate)
        if used <= tokens:
            return candidate
    return ""
