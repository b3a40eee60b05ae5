"""How much of the sparse signal a message gets for its length.

A message's sparse vector holds the latent terms of what it says. In a full request the
shared terms of a few tools wash out against the rest; in a capability phrase of four or five
words ("delete this customer for good", "calculate the BMI") one shared term carries most of
the vector, and at the sparse signal's full weight it overrides a dense ranking that was
right: "open the <a .bib path>" ranked a presentation opener above two ``read_file`` tools.
So the weight grows with the message: none up to ``sparse_short_words`` words, the profile's
whole ``sparse_weight`` from ``sparse_full_words`` on, linearly between
(``RetrievalProfile``; the figures behind the choice are in docs/decisions.md, "Short phrases
and the sparse signal").

The weight is one number per message known before ranking, from the text alone, so the
database client's statement ranks by the same sum the in-memory retriever does.
"""

from __future__ import annotations

import unicodedata

__all__ = ["length_share", "message_words"]

CHARACTERS_PER_WORD = 2.0
"""Chinese and Japanese are written without spaces: this many of their characters count as a
word (a Chinese word is one to two characters, a Japanese one a little more)."""
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA")


def message_words(text: str) -> float:
    """How many words ``text`` holds, in any script: its space-separated words, where a run of
    Chinese or Japanese characters counts one word per ``CHARACTERS_PER_WORD`` characters (and
    a Latin word or number inside it one more)."""
    words = 0.0
    for token in text.split():
        unspaced = sum(unicodedata.name(ch, "").startswith(_UNSPACED) for ch in token)
        words += unspaced / CHARACTERS_PER_WORD
        if unspaced == 0 or any(ch.isalnum() and ch.isascii() for ch in token):
            words += 1.0
    return words


def length_share(text: str, short: float, full: float) -> float:
    """The share of the sparse weight a message of ``text``'s length gets: 0 up to ``short``
    words, 1 from ``full`` words on, linear between; always 1 when ``full`` is 0 (no ramp)."""
    if full <= 0:
        return 1.0
    words = message_words(text)
    if words >= full:
        return 1.0
    if words <= short:
        return 0.0
    return (words - short) / (full - short)
