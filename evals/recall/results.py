"""What the roster eval measures: rows per language, mode and half; score splits; the gate."""

from __future__ import annotations

from dataclasses import dataclass, field

from evals.data.cases import HELD, Split
from evals.recall.gate import SHIPPED_MODE, THRESHOLDS
from toolret._tool import Role
from toolret.embedders._e5 import BundledE5Embedder

__all__ = ["CURVE_KS", "TABLE_KS", "EvalResult", "Failure", "RoleRow", "Row", "ScoreSplit"]

CURVE_KS = tuple(range(1, 21))
TABLE_KS = (1, 5)
"""Recall cut-offs read off the ranking; the configured ``k`` is read off the selection."""


@dataclass(frozen=True)
class Failure:
    """A case whose selection missed some of its tools."""

    prompt: str
    missing: tuple[str, ...]

    def __str__(self) -> str:
        return f'"{self.prompt}" → {", ".join(self.missing)}'


@dataclass(frozen=True)
class Row:
    """One language x mode x example configuration of one embedder."""

    embedder: str
    language: str
    mode: str
    examples: bool
    split: Split
    """``tune`` (in-sample) or ``held`` (held back)."""
    cases: int
    recall: dict[int, float]
    """Recall at each cut-off; the configured ``k`` is measured on what ``select()`` bound."""
    curve: tuple[float, ...]
    """Recall at k = 1..20, from the ranking."""
    narrowed: float
    """Share of cases whose selection held fewer tools than the roster."""
    no_signal: float
    """Share of cases where every candidate scored zero: the selection narrowed, but to the
    first tools in catalog order (what a lexical ranker does with a message it cannot read)."""
    bound: float
    """Average number of tools bound (core + retrieved)."""
    roster: int
    failures: tuple[Failure, ...]


@dataclass(frozen=True)
class ScoreSplit:
    """Dense scores of true matches against off-topic messages, for one embedder and config."""

    embedder: str
    examples: bool
    true_scores: tuple[tuple[str, float], ...]
    """Per case: its language and the score of its weakest-scoring needed tool."""
    off_topic_scores: tuple[tuple[str, float], ...]
    """Per off-topic message: its language and the best score any tool got."""

    @property
    def weakest_true(self) -> float:
        return min(score for _, score in self.true_scores)

    @property
    def strongest_off_topic(self) -> float:
        return max(score for _, score in self.off_topic_scores)

    @property
    def true_below_strongest_off_topic(self) -> int:
        """True matches a floor that drops every off-topic message would also drop."""
        ceiling = self.strongest_off_topic
        return sum(1 for _, score in self.true_scores if score <= ceiling)

    @property
    def off_topic_above_weakest_true(self) -> int:
        """Off-topic messages a floor that keeps every true match would still let through."""
        floor = self.weakest_true
        return sum(1 for _, score in self.off_topic_scores if score >= floor)


@dataclass(frozen=True)
class RoleRow:
    """Dense recall with examples embedded in one role, for one language."""

    embedder: str
    role: Role
    language: str
    recall: dict[int, float]
    mrr: float


@dataclass
class EvalResult:
    """Everything one run measured."""

    k: int
    roster: int
    rows: list[Row] = field(default_factory=list)
    splits: list[ScoreSplit] = field(default_factory=list)
    roles: list[RoleRow] = field(default_factory=list)
    embedders: list[str] = field(default_factory=list)
    chosen_roles: dict[str, Role] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    elapsed: float = 0.0

    def row(
        self, embedder: str, language: str, mode: str, examples: bool, split: Split = HELD
    ) -> Row:
        """The row for one configuration and half of the cases."""
        wanted = (embedder, language, mode, examples, split)
        for row in self.rows:
            if (row.embedder, row.language, row.mode, row.examples, row.split) == wanted:
                return row
        raise KeyError(wanted)

    @property
    def gate_rows(self) -> list[Row]:
        """The CI gate's configuration: the bundled model, the shipped mode, with examples."""
        bundled = BundledE5Embedder.model_id
        return [
            row
            for row in self.rows
            if row.embedder == bundled and row.mode == SHIPPED_MODE and row.examples
        ]

    @property
    def gate_passed(self) -> bool | None:
        """Every gated selection narrowed, and each language's held-back recall at each gated
        cut-off is at or above its threshold (``evals.recall.gate.THRESHOLDS``). None when the
        gate was not run."""
        rows = self.gate_rows
        if not rows:
            return None
        narrowed = all(row.narrowed == 1.0 for row in rows)
        held = [row for row in rows if row.split == HELD]
        return narrowed and all(
            row.recall[cut] >= minimum - 1e-9
            for row in held
            for cut, minimum in THRESHOLDS.get(row.language, {self.k: 1.0}).items()
            if cut in row.recall
        )
