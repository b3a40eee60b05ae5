"""What centring per description language costs a selection: ``python -m evals.perf.centring``
(part of ``make bench``).

On a catalog described in two languages the client ranks each language's tools by their own
statement (``toolret.retrieval._centred_rank``): two round trips where there was one, and the
published corpus's description vectors read once. Measured on the demo roster with eight of its
tools described in Chinese (44 tools, the exact statement) and on the 527-tool synthetic fleet
(``evals.perf.fleet_latency.fleet``) with every ninth tool's description in Chinese (the
indexes), for every eval message and four Chinese ones, interleaved, with fresh clients each
round: ``select()`` p50 with ``TOOLRET_CENTRING=0`` (today) and with centring, as a ratio, over
every message and over those centring applies to (written in English or Chinese).
Writes ``evals/out/bench_centring.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from evals.data.cases import CASES
from evals.perf.database import database, machine
from evals.perf.fleet_latency import fleet
from evals.perf.timing import percentiles
from toolret._catalog import Catalog
from toolret._settings import Settings
from toolret.demo.roster import CORE, TOOLS
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._centring import description_groups
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._sparse import written_in
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_centring.json"
ROUNDS = 2
CHINESE = (
    "列出某个对象的所有已保存视图（表格、看板、日历），显示名称、类型和创建者。",
    "查看一个已保存视图的完整配置：筛选条件、排序方式、显示的列、分组和布局类型。",
    "为某个对象新建一个已保存视图：表格、按单选字段分组的看板，或基于日期字段的日历。",
    "修改现有的已保存视图：添加或删除筛选条件、调整排序、显示或隐藏列、更改分组或重命名。",
    "删除一个已保存视图。只删除视图本身，其中显示的记录和字段不受影响，用户想清理时使用。",
    "按时间倒序显示某条记录上的评论和备注，包括作者、时间以及提到的同事，用于回顾沟通。",
    "在某条记录上发表评论或备注，可以提到同事让他们收到通知，例如记录一次通话的要点。",
    "列出工作区中的成员及其姓名、邮箱、角色和团队，用于找到合适的人来分配记录或任务。",
)
ASKED = ("统计本周新增了多少线索", "把这两个重复的联系人合并成一个", "从上传的表格导入联系人")


def mixed(catalog: Catalog, every: int) -> Catalog:
    """``catalog`` with every ``every``-th candidate described in Chinese."""
    tools = [
        dataclasses.replace(tool, description=f"{CHINESE[i % len(CHINESE)]}（{tool.name}）")
        if not tool.core and i % every == every - 1
        else tool
        for i, tool in enumerate(catalog.tools)
    ]
    return Catalog(tools, core=[t.name for t in catalog.core], min_description_length=20)


async def measure(url: str, catalog: Catalog, rounds: int) -> dict[str, Any]:
    groups = description_groups(catalog)
    assert groups is not None
    languages = set(groups.values())
    messages = [*dict.fromkeys(case.prompt for case in CASES), *ASKED]
    model = BundledE5Embedder()
    await model.warm_up()
    samples: dict[str, list[float]] = {"today": [], "centred": []}
    async with VectorStore.from_url(url) as store:
        await index_catalog(store, model, catalog)
        for round_ in range(rounds):
            async with (
                ToolRetrievalClient(
                    embedder=model, store=store, settings=Settings(centring=False)
                ) as today,
                ToolRetrievalClient(
                    embedder=model, store=store, settings=Settings(centring=True)
                ) as centred,
            ):
                clients = {"today": today, "centred": centred}
                for client in clients.values():
                    await client.select(catalog, f"warm up the pool and the statements {round_}")
                for i, message in enumerate(messages):
                    order = list(clients.items())[(i + round_) % 2 :] + list(clients.items())
                    for name, client in order[:2]:
                        started = time.perf_counter()
                        await client.select(catalog, message)
                        took = time.perf_counter() - started
                        samples[name].append(took)
                        split = "applies" if written_in(message) in languages else "not_applies"
                        samples.setdefault(f"{name}_{split}", []).append(took)
    await model.aclose()
    report: dict[str, Any] = {name: percentiles(values) for name, values in samples.items()}
    report["tools"] = len(catalog)
    report["ratio"] = report["centred"]["p50_ms"] / report["today"]["p50_ms"]
    report["ratio_applies"] = (
        report["centred_applies"]["p50_ms"] / report["today_applies"]["p50_ms"]
    )
    return report


async def run(url: str, rounds: int) -> dict[str, Any]:
    return {
        "machine": machine(),
        "roster": await measure(url, mixed(Catalog(TOOLS, core=CORE), 5), rounds),
        "fleet": await measure(url, mixed(fleet(), 9), rounds),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="times each message is timed")
    args = parser.parse_args(argv)
    with database() as url:
        report = asyncio.run(run(url, args.rounds))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2), encoding="utf-8")
    console = Console()
    for name in ("roster", "fleet"):
        r = report[name]
        console.print(
            f"centring, {name} ({r['tools']} tools, {report['machine']}): select() p50 "
            f"{r['today']['p50_ms']:.1f} ms today, {r['centred']['p50_ms']:.1f} ms centred: "
            f"{r['ratio']:.2f}x; messages in one of its description languages (centred) "
            f"{r['today_applies']['p50_ms']:.1f} ms against {r['centred_applies']['p50_ms']:.1f} "
            f"ms: {r['ratio_applies']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
