"""Dense scores centred per description language, on catalogs described in several languages.

The multilingual model scores a message nearer every text in its own language. On a catalog
whose tools are all described in one language that is the same for every tool and changes no
ranking; on a fleet with a tenth of its tools described in Chinese, a Chinese message ranks
the Chinese-described tools first for their language alone, and an English one ranks them
last (docs/decisions.md, "Dense scores centred per description language").

On such a catalog (``description_groups``: two or more languages, each describing at least
``DESCRIBED_SHARE`` of the candidates and at least ``GROUP_TOOLS`` of them) each language's
tools form a group, and for a message written in one of those languages
(``Centring.applies_to``) every tool's dense score is shifted by
``q · (μ − μ_g)``: ``μ_g`` the mean of its group's description vectors, ``μ`` the mean over
every candidate's, ``q`` the message's vector. For tools scored by their description alone this
moves each group's mean dense score to the catalog's mean; within a group nothing moves. A
catalog described in one language has no groups and ranks exactly as without centring.

The shift is one number per (message, group), so the best ``L`` tools by the centred score
are among the best ``L`` of each group by the plain one: the client ranks each group through
the store's usual statements and adds its shift (``toolret.retrieval._centred_rank``), and
equals the in-memory retriever, which shifts every score (``Centring.shift``).
"""

from __future__ import annotations

import unicodedata
import weakref
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from toolret.embedders._base import Vector
from toolret.retrieval._sparse import DESCRIBED_SHARE, LATIN, written_in

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret._tool import Document

__all__ = ["GROUP_TOOLS", "Centring", "description_groups", "description_keys"]

GROUP_TOOLS = 8
"""A language describing fewer candidates than this is no group of its own: the mean of a
handful of tools says more about those tools than about their language, and a lone tool
centred on the catalog's mean would lose what the message says about it."""

_GROUPS: weakref.WeakKeyDictionary[Catalog, Mapping[str, str] | None] = weakref.WeakKeyDictionary()


def description_groups(catalog: Catalog) -> Mapping[str, str] | None:
    """Each candidate's description language (``written_in``, short Latin-script descriptions
    as ``latin``), by tool name, when the catalog's candidates are described in two or more
    languages that each hold ``DESCRIBED_SHARE`` of them and ``GROUP_TOOLS`` tools; else None.

    A tool in no such language joins the largest group of its script (Latin or not), else the
    largest: a ``latin`` or misidentified English description goes with the English ones.
    Computed once per catalog (a cut: the whole catalog's)."""
    catalog = catalog.whole
    if catalog in _GROUPS:
        return _GROUPS[catalog]
    tools = catalog.candidates
    texts = {tool.name: tool.description or tool.name for tool in tools}
    labels = {name: written_in(text, short=True) for name, text in texts.items()}
    counts = Counter(labels.values())
    least = max(DESCRIBED_SHARE * len(tools), GROUP_TOOLS)
    kept = [label for label, n in counts.most_common() if n >= least and label != LATIN]
    groups: Mapping[str, str] | None = None
    if len(kept) >= 2:
        latin = {label for label in kept if _mostly_latin(texts, labels, label)}
        largest = {
            True: next((label for label in kept if label in latin), kept[0]),
            False: next((label for label in kept if label not in latin), kept[0]),
        }
        groups = {
            name: label if label in kept else largest[_latin(texts[name])]
            for name, label in labels.items()
        }
    _GROUPS[catalog] = groups
    return groups


def _mostly_latin(texts: Mapping[str, str], labels: Mapping[str, str], label: str) -> bool:
    written = [_latin(texts[name]) for name, own in labels.items() if own == label]
    return sum(written) * 2 >= len(written)


def _latin(text: str) -> bool:
    """Whether most of ``text``'s letters are Latin."""
    letters = [unicodedata.name(ch, "") for ch in text if ch.isalpha()]
    return sum(name.startswith("LATIN") for name in letters) * 2 >= len(letters) > 0


def description_keys(documents: list[tuple[str, Document]]) -> dict[str, str]:
    """Each tool's description document key, from its corpus documents (first one kept)."""
    keys: dict[str, str] = {}
    for name, doc in documents:
        if doc.kind == "description":
            keys.setdefault(name, doc.key)
    return keys


@dataclass(frozen=True)
class Centring:
    """One catalog's groups and, per group, ``μ − μ_g`` (``shifts``, one row per group)."""

    groups: tuple[str, ...]
    group_of: Mapping[str, str]
    shifts: NDArray[np.float64]

    @classmethod
    def build(cls, groups: Mapping[str, str], vectors: Mapping[str, Vector]) -> Centring:
        """From each grouped tool's description vector (by tool name)."""
        names = sorted(groups)
        stacked = np.stack([np.asarray(vectors[n], dtype=np.float64) for n in names])
        order = tuple(sorted(set(groups.values())))
        member = np.array([order.index(groups[n]) for n in names])
        overall = stacked.mean(axis=0)
        shifts = np.stack([overall - stacked[member == i].mean(axis=0) for i in range(len(order))])
        return cls(order, dict(groups), shifts)

    def applies_to(self, text: str) -> bool:
        """Whether the message ``text`` is written in one of the groups' languages: the
        preference centring undoes is a message's for its own language (for one in none of
        them, the shifts only moved tools about: Arabic and Japanese lost on the mixed fleet)."""
        return written_in(text) in self.groups

    def offsets(self, query: Vector) -> dict[str, float]:
        """Each group's shift for the message's vector ``query``."""
        values = self.shifts @ np.asarray(query, dtype=np.float64)
        return dict(zip(self.groups, values.tolist(), strict=True))

    def shift(self, scores: Mapping[str, float], query: Vector) -> dict[str, float]:
        """``scores`` (dense, by tool) with each grouped tool's group shift added."""
        offsets = self.offsets(query)
        return {
            name: score + offsets[self.group_of[name]] if name in self.group_of else score
            for name, score in scores.items()
        }

    def members(self, group: str) -> frozenset[str]:
        """The tools of ``group``."""
        return frozenset(name for name, g in self.group_of.items() if g == group)
