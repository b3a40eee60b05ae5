"""What a study measured: every candidate (``Variant``) on every tuning (set, language)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean

from toolret._profile import RetrievalProfile
from toolret._settings import RetrievalMode
from toolret._tool import Role
from toolret.recall._results import RankMetrics

__all__ = ["StudyResult", "StudyRow", "Variant"]


@dataclass(frozen=True)
class Variant:
    """One candidate configuration: what ``choice`` it stands for, and how it is run."""

    choice: str
    example_role: Role
    profile: RetrievalProfile
    mode: RetrievalMode = "dense"
    examples: bool = True


@dataclass(frozen=True)
class StudyRow:
    """One variant on one (set, language)."""

    variant: Variant
    bench: str
    language: str
    metrics: RankMetrics


@dataclass(frozen=True)
class StudyResult:
    """One study for one embedder: every variant on every tuning (set, language).

    ``verdict`` and ``passed`` are set by studies judged by a rule rather than by the mean MRR
    (``criterion``): the fleet studies pass a choice only if no set loses more than a point and
    the MCP fleets gain (``toolret.recall.studies._fleets``)."""

    study: str
    embedder: str
    question: str
    rows: tuple[StudyRow, ...]
    current: str
    """The choice the embedder makes today."""
    verdict: str = ""
    passed: tuple[str, ...] = ()

    @property
    def choices(self) -> list[str]:
        return list(dict.fromkeys(row.variant.choice for row in self.rows))

    def criterion(self, choice: str) -> float:
        """Mean MRR over the choice's rows: every (set, language, example configuration)."""
        return mean(row.metrics.mrr for row in self.rows if row.variant.choice == choice)

    @property
    def winner(self) -> str:
        return max(self.choices, key=self.criterion)
