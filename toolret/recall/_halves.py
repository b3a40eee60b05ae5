"""Two halves of a benchmark set's requests: one to choose on (``A``), one to confirm on (``B``).

A choice fitted to a set's requests and reported on the same requests says little about the
next catalog. Each set is therefore split, deterministically, into a tuning half ``A`` and a
confirming half ``B``, **by scenario**: a request and its translations are one scenario and sit
in the same half, so tuning on a Persian line cannot lift its English original.

How a set's scenarios are found (``scenarios``):

- every language holds the same number of cases, each needing the tools the English case at the
  same position needs (massive-dev: the same line numbers in en and fa; toollens-dev-ml: the
  same request in six languages): the scenario is the position within the language;
- otherwise each language's cases are an order-preserving subset of the English ones (xsid-dev:
  each translation of an English validation sentence, some dropped per language): a case is
  aligned to the first English case after the previous match that needs the same tools. Where
  two English cases in a row need the same tools and one was dropped, the alignment can be off
  by a position, so halves are cut in blocks of ``BLOCK`` consecutive scenarios: a translation
  lands in its original's half unless the drift crosses a block edge;
- a language that cannot be aligned that way keeps its own positions (said by
  ``aligned=False``).

Scenario ``s`` is in half ``A`` when ``(s // BLOCK)`` is even, else ``B``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from toolret.recall._data import BenchCase, BenchSet

__all__ = ["BLOCK", "HALVES", "Half", "half_of", "scenarios"]

Half = Literal["A", "B"]
HALVES: tuple[Half, Half] = ("A", "B")
BLOCK = 10
"""Consecutive scenarios kept in one half (see the module docstring)."""


def scenarios(cases: Sequence[BenchCase]) -> tuple[tuple[int, ...], bool]:
    """Each case's scenario number (its English original's position), and whether every
    language could be aligned to English (else the unaligned ones keep their positions)."""
    by_language: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        by_language.setdefault(case.language, []).append(i)
    reference = "en" if "en" in by_language else next(iter(by_language), "en")
    english = [cases[i].expected for i in by_language.get(reference, [])]
    out = [0] * len(cases)
    aligned = True
    for rows in by_language.values():
        positions = _align([cases[i].expected for i in rows], english)
        if positions is None:
            aligned = False
            positions = list(range(len(rows)))
        for row, position in zip(rows, positions, strict=True):
            out[row] = position
    return tuple(out), aligned


def _align(
    labels: Sequence[tuple[str, ...]], english: Sequence[tuple[str, ...]]
) -> list[int] | None:
    if len(labels) == len(english) and list(labels) == list(english):
        return list(range(len(labels)))
    positions, at = [], 0
    for label in labels:
        while at < len(english) and english[at] != label:
            at += 1
        if at == len(english):
            return None
        positions.append(at)
        at += 1
    return positions


def half_of(bench: BenchSet, half: Half) -> BenchSet:
    """The set with only ``half``'s cases (named ``<set> half A``)."""
    if half not in HALVES:
        raise ValueError(f"unknown half {half!r}; use A or B")
    numbers, _ = scenarios(bench.cases)
    wanted = HALVES.index(half)
    kept = tuple(
        case
        for case, number in zip(bench.cases, numbers, strict=True)
        if (number // BLOCK) % 2 == wanted
    )
    return dataclasses.replace(bench, name=f"{bench.name} half {half}", cases=kept)
