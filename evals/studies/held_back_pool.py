"""The roster's four held-back sets pooled: what each sparse reading does to Arabic, Turkish and
Persian messages on a catalog described in English, and how often one fresh set of 84 cases a
language can tell it.

``python -m evals.studies.held_back_pool [--out FILE] [--memo FILE]``

All four sets (the held-back half, ``evals.data.fresh``, ``fresh2`` and ``fresh3``) have been read
for a choice about the sparse signal and are spent: nothing here confirms a choice, and nothing
is chosen on it. It answers two questions the next choice needs before any new set is written:

- **Pooled**, without examples (where the signal is sent), each reading of
  ``evals.studies.head_fusion`` (today's opt-in and every position fusion) against today's
  default: the mean change of R@3, R@5 and R@12 per language over every case of the four sets,
  with its standard error, and the same per set.
- **The rule's power**: treating the pooled per-case changes as the truth, the share of draws of
  ``SIZE`` cases a language (a fresh set's size) in which no language loses more than
  ``MAX_LOSS`` point at any cut: how often a fresh set would let the reading pass the issue's rule.
  Languages present in every set (Arabic and Turkish) only; Persian is in ``fresh3`` alone.

The scores are ``evals.studies.head_fusion``'s (``_choices`` over the cached fusion signals, in
``evals/out/fusion``). Writes ``evals/out/held_back_pool.md``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import FRESH, FRESH2, FRESH3, HELD, Split
from evals.recall.roster_sets import NAMES, roster_set
from evals.studies._fusion_signals import fusion_signals
from evals.studies._report import report_main
from evals.studies.head_fusion import _choices, opt_in_weight
from evals.studies.sparse_fusion import MAX_LOSS, REFERENCE, _ranks, per_case_recall
from toolret.recall._memo import MemoEmbedder

__all__ = ["main", "pass_rate", "per_case_recall"]

SPENT: tuple[Split, ...] = (HELD, FRESH, FRESH2, FRESH3)
KS = (3, 5, 12)
SIZE = 84
"""Cases a language in a fresh set (the second and third sets': 84 scenarios)."""
DRAWS = 4000
SEED = 39

Changes = NDArray[np.float64]
"""Per case (rows), the change of its recall at each of ``KS`` (columns), in points."""


def pass_rate(
    changes: Mapping[str, Changes],
    size: int = SIZE,
    *,
    max_loss: float = MAX_LOSS,
    draws: int = DRAWS,
    seed: int = SEED,
) -> float:
    """The share of draws of ``size`` cases a language (with replacement, each language on its
    own) in which every language's mean change at every cut is at least ``-max_loss``."""
    rng = np.random.default_rng(seed)
    passed = np.ones(draws, dtype=bool)
    for rows in changes.values():
        picked = rng.integers(0, len(rows), size=(draws, size))
        passed &= (rows[picked].mean(axis=1) >= -max_loss).all(axis=1)
    return float(passed.mean())


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    del benchmarks  # the roster's own sets
    # (reading, set, language) -> per-case change against the default
    changes: dict[tuple[str, str, str], Changes] = {}
    for split in SPENT:
        bench = roster_set(split)
        x = await fusion_signals(memo, bench, False)
        choices = _choices(x, opt_in_weight(x, bench, False))
        language = np.array(x.languages)
        reference = per_case_recall(_ranks(x, choices[REFERENCE][0]), KS)
        for name, (scores, _) in choices.items():
            if name == REFERENCE:
                continue
            got = per_case_recall(_ranks(x, scores), KS) - reference
            for lang in dict.fromkeys(x.languages):
                if lang != "en":
                    changes[(name, NAMES[split], lang)] = got[language == lang]
        print(f"[held_back_pool] {bench.name}", file=sys.stderr, flush=True)
    return _report(changes)


def _cell(rows: Changes) -> str:
    mean = rows.mean(axis=0)
    error = rows.std(axis=0, ddof=1) / np.sqrt(len(rows))
    return " / ".join(f"{m:+.1f} ± {e:.1f}" for m, e in zip(mean, error, strict=True))


def _report(changes: Mapping[tuple[str, str, str], Changes]) -> str:
    readings = list(dict.fromkeys(name for name, _, _ in changes))
    sets = list(dict.fromkeys(s for _, s, _ in changes))
    languages = list(dict.fromkeys(lang for _, _, lang in changes))
    everywhere = [g for g in languages if all((readings[0], s, g) in changes for s in sets)]
    pooled = {
        (name, lang): np.concatenate([changes[k] for k in changes if k[0] == name and k[2] == lang])
        for name in readings
        for lang in languages
    }
    lines = [
        "## The four held-back sets pooled, without examples (all spent: reported only)",
        "",
        "Mean change against today's default ± its standard error, R@3 / R@5 / R@12, points; "
        f"last column: the share of {DRAWS} draws of {SIZE} cases a language "
        f"({', '.join(everywhere)}) passing the rule (no loss over {MAX_LOSS:g} point).",
        "",
        "| reading | "
        + " | ".join(f"{g} (n {len(pooled[(readings[0], g)])})" for g in languages)
        + f" | P(pass at {SIZE}) |",
        "|---|" + "---|" * len(languages) + "---:|",
    ]
    for name in readings:
        rate = pass_rate({g: pooled[(name, g)] for g in everywhere})
        pooled_cells = " | ".join(_cell(pooled[(name, g)]) for g in languages)
        lines.append(f"| {name} | {pooled_cells} | {rate:.2f} |")
    lines += ["", "Per set (mean change, R@3 / R@5 / R@12):", ""]
    lines += ["| reading | set | " + " | ".join(languages) + " |"]
    lines.append("|---|---|" + "---|" * len(languages))
    for name in readings:
        for s in sets:
            cells = [
                " / ".join(f"{v:+.1f}" for v in changes[(name, s, g)].mean(axis=0))
                if (name, s, g) in changes
                else ""
                for g in languages
            ]
            lines.append(f"| {name} | {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/held_back_pool.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
