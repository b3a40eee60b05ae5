"""How deep the summary scan must read to certify the blended top 12, per way of summarizing.

``python -m evals.studies.summary_depth`` prints the table behind
``toolret.store._summaries.SUBSET_LIMIT``. In numpy, with the bundled model's profile, for each
message: the tools' summary vectors are read in order of their inner product with the message,
as the ranking statement's index scan reads them, until the top 12 are certain — 12 tools whose
exact blended score is at least the next vector's inner product (no tool unread can beat them).
Reported: how many vectors that took (median, 90th percentile, max) and how many vectors the
catalog stores, for two ways of summarizing a tool with more examples than the score averages:

- ``subsets``: one vector per subset of two examples (their inner products' best is the score);
- ``bounds``: one vector per example, w·d + (1-w)·e (their best bounds the score from above).

On the demo roster (its real vectors: 44 tools, eight examples a tool on average) and on
synthetic catalogs shaped like the bundled model's vectors (``evals.perf.synthetic.Sampler``):
3,000 tools with eight examples each, 100,000 with three. The messages are the eval cases' (the
first 60 for the synthetic catalogs). No ranking choice is made here: the vectors read decide
only how fast the exact answer is found.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.synthetic import Sampler
from toolret.demo.roster import catalog as roster
from toolret.embedders._base import embed_role
from toolret.embedders._e5 import BundledE5Embedder

K = 12
WEIGHT = BundledE5Embedder.profile.score.description_weight
Tool = tuple[np.ndarray, np.ndarray]  # description, examples (n x d)


def summaries(tools: Sequence[Tool], way: str) -> tuple[np.ndarray, np.ndarray]:
    """Every tool's summary vectors and their owners, summarized ``way``."""
    vectors: list[np.ndarray] = []
    owners: list[int] = []
    for owner, (description, examples) in enumerate(tools):
        if len(examples) <= 2:
            groups: list[tuple[int, ...]] = [tuple(range(len(examples)))]
        elif way == "subsets":
            groups = list(itertools.combinations(range(len(examples)), 2))
        else:
            groups = [(i,) for i in range(len(examples))]
        for group in groups:
            mean = examples[list(group)].mean(axis=0) if group else description
            vectors.append(WEIGHT * description + (1 - WEIGHT) * mean if group else description)
            owners.append(owner)
    return np.stack(vectors), np.array(owners)


def blended(tools: Sequence[Tool], query: np.ndarray) -> np.ndarray:
    """Each tool's exact blended score (``ToolScore.combine``, as the in-memory retriever)."""
    described = np.array([description @ query for description, _ in tools], dtype=np.float64)
    cosines = [examples @ query for _, examples in tools]
    owners = np.repeat(np.arange(len(tools)), [len(c) for c in cosines])
    flat = np.concatenate(cosines).astype(np.float64) if len(owners) else np.empty(0)
    return BundledE5Embedder.profile.score.combine(described, flat, owners)


def depth(tools: Sequence[Tool], way: str, queries: np.ndarray) -> tuple[int, list[int]]:
    """The vectors stored, and per message the vectors read until the top 12 are certain."""
    vectors, owners = summaries(tools, way)
    read = []
    for query in queries:
        exact = blended(tools, query)
        products = vectors @ query
        order = np.argsort(-products)
        seen: set[int] = set()
        for position, index in enumerate(order):
            seen.add(int(owners[index]))
            frontier = products[order[position + 1]] if position + 1 < len(order) else -np.inf
            if len(seen) >= K and sum(exact[t] >= frontier for t in seen) >= K:
                read.append(position + 1)
                break
    return len(vectors), read


async def roster_tools() -> tuple[list[Tool], np.ndarray]:
    """The roster's real vectors, and the eval messages'."""
    embedder = BundledE5Embedder()
    tools: list[Tool] = []
    for tool in roster.candidates:
        description, *examples = tool.documents(embedder.example_role)
        (d,) = await embed_role(embedder, [description.text], description.role)
        e = await embed_role(embedder, [doc.text for doc in examples], embedder.example_role)
        tools.append((d, np.asarray(e).reshape(len(examples), -1)))
    queries = await embedder.embed_queries([case.prompt for case in CASES])
    return tools, np.asarray(queries)


def synthetic(sampler: Sampler, count: int, examples: int) -> list[Tool]:
    descriptions = sampler(count)
    drawn = sampler(count * examples).reshape(count, examples, -1)
    return list(zip(descriptions, drawn, strict=True))


def main() -> int:
    tools, queries = asyncio.run(roster_tools())
    real = np.concatenate([np.stack([d for d, _ in tools]), *[e for _, e in tools], queries])
    sampler = Sampler(real)
    catalogs = {
        "demo roster (44 tools, real vectors)": (tools, queries),
        "3,000 tools, 8 examples each": (synthetic(sampler, 3_000, 8), queries[:60]),
        "100,000 tools, 3 examples each": (synthetic(sampler, 100_000, 3), queries[:60]),
    }
    table = Table(title=f"vectors read to certify the blended top {K} (median / p90 / max)")
    for column in ("catalog", "subsets: stored", "subsets: read", "bounds: stored", "bounds: read"):
        table.add_column(column, justify="right")
    for name, (catalog, messages) in catalogs.items():
        cells = [name]
        for way in ("subsets", "bounds"):
            stored, read = depth(catalog, way, messages)
            p50, p90 = np.percentile(read, 50), np.percentile(read, 90)
            cells += [f"{stored:,}", f"{p50:.0f} / {p90:.0f} / {max(read)}"]
        table.add_row(*cells)
    Console(width=140).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
