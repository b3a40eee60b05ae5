"""Cache stability: does each turn's tool list keep the previous one as a byte-identical prefix?

A scripted 20-turn conversation in English, Arabic and Turkish over the 44-tool demo roster, run
twice through ``InMemoryRetriever`` on the bundled model (``k`` = 12):

- **per-turn subset** (the default): each turn sends core + its own top ``k``, in catalog order;
- **stable** (``StableToolList``): the conversation's tools only grow, in first-seen order, core
  first;
- **stable, limit 24**: the same, starting over from core + the turn's selection when the list
  would pass 24 tools.

A turn keeps the prefix when the byte string of its tool definitions (each tool's compact JSON,
in the order sent) starts with the previous turn's. Reported per policy: the share of turns 2-20
that keep it, the tools sent at turn 20, the mean tools and tokens sent per turn, and the tool
tokens a provider bills again because the prefix changed (the tools after the longest common
prefix with the previous turn). Tokens are counted with o200k (``bpe-openai``) when it is
installed, else with the documented estimate (``toolret.retrieval._tokens``); the full roster's
tokens and
the saving per turn (full roster against core + k) are reported too.

    python -m evals.studies.cache_stability            # table, and evals/out/cache_stability.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.demo.roster import build_catalog
from toolret.embedders import BundledE5Embedder
from toolret.errors import ConfigurationError
from toolret.retrieval import _tokens as tokens
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import Selection
from toolret.retrieval._stable import StableToolList

__all__ = ["CONVERSATION", "PolicyResult", "main", "measure", "prefix_kept"]

K = 12
LIMIT = 2 * K
"""The bounded variant's limit: core + two turns' worth of retrieved tools, roughly."""

CONVERSATION: tuple[tuple[str, str], ...] = (
    ("en", "Show me the open deals for Acme Corp"),
    ("en", "Add a status field with options open, won and lost to deals"),
    ("ar", "أبغى أربط كل صفقة بالشركة حقتها"),
    ("ar", "اكتب تعليق على هذا السجل إن العميل طلب عرض سعر جديد"),
    ("tr", "Yarın için müşteriyi arama görevi oluştur"),
    ("tr", "Kanban görünümünü aşamaya göre grupla"),
    ("en", "Delete the duplicate contact for Acme Corp"),
    ("en", "Oops, bring that contact back"),
    ("ar", "صدّر كل الصفقات إلى ملف CSV"),
    ("ar", "غيّر اسم الحقل من الحالة إلى المرحلة"),
    ("tr", "Bu kaydı Ahmet'e ata ve bir not bırak"),
    ("tr", "Yeni bir nesne oluştur: Projeler"),
    ("en", "Import these 200 leads from the spreadsheet"),
    ("en", "Mark the follow-up task as done"),
    ("ar", "اعرض لي كل المهام المتأخرة"),
    ("ar", "احذف العرض القديم للصفقات"),
    ("tr", "Şirket ile kişi arasındaki bağlantıyı kaldır"),
    ("tr", "Son yapılan değişikliği geri al"),
    ("en", "Merge the two Acme company records into one"),
    ("en", "Who changed the amount on this deal last week?"),
)
"""The scripted conversation: 20 user turns, en/ar/tr, touching every domain of the roster."""


@dataclass(frozen=True)
class PolicyResult:
    """One policy over the whole conversation."""

    policy: str
    turns: int
    prefix_kept: int
    """Turns 2..N whose tool list starts with the previous turn's, byte for byte."""
    prefix_share: float
    tools_at_last_turn: int
    mean_tools_sent: float
    mean_tokens_sent: float
    rebilled_tokens: int
    """Tool tokens after the longest common prefix with the previous turn, summed over turns
    2..N: what the provider bills again (and everything after the tools with them)."""
    narrowed_turns: int


def serialized(tools: Sequence[Tool]) -> list[bytes]:
    """Each tool's definition as the bytes sent, in order."""
    return [tokens.tool_json(tool).encode() for tool in tools]


def prefix_kept(previous: Sequence[Tool], current: Sequence[Tool]) -> bool:
    """Whether ``current``'s definitions start with ``previous``'s, byte for byte."""
    before, now = b"".join(serialized(previous)), b"".join(serialized(current))
    return now.startswith(before)


def rebilled(previous: Sequence[Tool], current: Sequence[Tool]) -> int:
    """Tokens of the tools in ``current`` after its longest common prefix with ``previous``."""
    common = 0
    for before, now in zip(serialized(previous), serialized(current), strict=False):
        if before != now:
            break
        common += 1
    return tokens.schema_tokens(current[common:])


def summarize(policy: str, selections: Sequence[Selection]) -> PolicyResult:
    kept = sum(prefix_kept(a.tools, b.tools) for a, b in itertools.pairwise(selections))
    transitions = max(1, len(selections) - 1)
    return PolicyResult(
        policy=policy,
        turns=len(selections),
        prefix_kept=kept,
        prefix_share=kept / transitions,
        tools_at_last_turn=len(selections[-1].tools),
        mean_tools_sent=sum(len(s.tools) for s in selections) / len(selections),
        mean_tokens_sent=sum(s.schema_tokens or 0 for s in selections) / len(selections),
        rebilled_tokens=sum(rebilled(a.tools, b.tools) for a, b in itertools.pairwise(selections)),
        narrowed_turns=sum(s.mode.value != "full" for s in selections),
    )


async def measure(catalog: Catalog, retriever: InMemoryRetriever) -> dict[str, object]:
    """Run the conversation under both policies; the figures as a JSON-ready dict."""
    subset = [await retriever.select(catalog, text, k=K) for _, text in CONVERSATION]
    stable = StableToolList(catalog)
    grown = [await retriever.select(catalog, text, k=K, stable=stable) for _, text in CONVERSATION]
    bounded = StableToolList(catalog, limit=LIMIT)
    capped = [
        await retriever.select(catalog, text, k=K, stable=bounded) for _, text in CONVERSATION
    ]
    roster = tokens.roster_tokens(catalog)
    per_turn = [roster - (s.schema_tokens or 0) for s in subset]
    return {
        "roster_tools": len(catalog),
        "core_tools": len(catalog.core),
        "k": K,
        "tokenizer": tokens.tokenizer_name(),
        "roster_tokens": roster,
        "tokens_saved_per_turn_core_plus_k": sum(per_turn) / len(per_turn),
        "tokens_saved_per_turn_stable": sum(roster - (s.schema_tokens or 0) for s in grown)
        / len(grown),
        "policies": [
            asdict(summarize("per-turn subset", subset)),
            asdict(summarize("stable", grown)),
            asdict(summarize(f"stable, limit {LIMIT}", capped)),
        ],
        "stable_tools_by_turn": [len(s.tools) for s in grown],
        "stable_limited_tools_by_turn": [len(s.tools) for s in capped],
    }


def render(report: dict[str, object]) -> str:
    policies = report["policies"]
    assert isinstance(policies, list)
    lines = [
        f"cache stability: {report['roster_tools']} tools ({report['core_tools']} core), "
        f"k={report['k']}, {len(CONVERSATION)} turns en/ar/tr, tokens by {report['tokenizer']}",
        f"full roster: {report['roster_tokens']} tokens; saved per turn by core + k: "
        f"{report['tokens_saved_per_turn_core_plus_k']:.0f}; by the stable list: "
        f"{report['tokens_saved_per_turn_stable']:.0f}",
        f"{'policy':<18} {'prefix kept':>12} {'tools@20':>9} {'mean tools':>11} "
        f"{'mean tokens':>12} {'re-billed':>10}",
    ]
    for row in policies:
        lines.append(
            f"{row['policy']:<18} {row['prefix_kept']:>5}/{row['turns'] - 1:<3}"
            f"{row['prefix_share']:>4.0%} {row['tools_at_last_turn']:>9} "
            f"{row['mean_tools_sent']:>11.1f} {row['mean_tokens_sent']:>12.0f} "
            f"{row['rebilled_tokens']:>10}"
        )
    lines.append(f"stable list size by turn: {report['stable_tools_by_turn']}")
    lines.append(f"limited list size by turn: {report['stable_limited_tools_by_turn']}")
    return "\n".join(lines)


async def run() -> dict[str, object]:
    with contextlib.suppress(ConfigurationError):  # without bpe-openai: the documented estimate
        tokens.load_tokenizer()
    catalog = build_catalog()
    async with InMemoryRetriever(BundledE5Embedder(), k=K, time_budget=120.0) as retriever:
        await retriever.index(catalog)
        return await measure(catalog, retriever)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("evals/out/cache_stability.json"))
    args = parser.parse_args(argv)
    report = asyncio.run(run())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
