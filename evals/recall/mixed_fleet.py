"""A mixed-language tuning fleet: toollens-dev with a tenth of its servers described in Chinese.

A user's fleet is rarely in one language: the held-out 527-tool fleet has 11% of its tools
described in Chinese, and there English messages need tools described only in Chinese. No
public set has that shape, so this one is made at run time from the shared benchmarks (read in
place, never copied): toollens-dev's servers, with the tool descriptions of 31 of its 314
servers (every tenth in name order, from the sixth: 50 of 464 tools) replaced by
Chinese ones written for this set as their authors would write them (``evals/data/
toollens_zh_overlay.json``, keyed by server and tool: only our translations are stored), and
the requests of toollens-dev-ml (English and five other languages, the same ``expected``).
Parameter descriptions stay as written.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from toolret.adapters._mcp import catalog_from_mcp
from toolret.recall._data import BenchSet, load_benchmark

__all__ = ["MIXED_NAME", "OVERLAY", "mixed_fleet"]

OVERLAY = Path(__file__).resolve().parents[1] / "data" / "toollens_zh_overlay.json"
MIXED_NAME = "toollens-dev-ml-zh10"


def mixed_fleet(benchmarks: Path | str) -> BenchSet:
    """toollens-dev-ml's requests on toollens-dev's servers with the Chinese overlay."""
    root = Path(benchmarks)
    servers = json.loads((root / "toollens-dev" / "servers.json").read_text(encoding="utf-8"))
    overlay: dict[str, dict[str, str]] = json.loads(OVERLAY.read_text(encoding="utf-8"))
    for server, tools in overlay.items():
        listed = {tool["name"]: tool for tool in servers[server]}
        for name, description in tools.items():
            listed[name]["description"] = description
    requests = load_benchmark(root / "toollens-dev-ml")
    tools = catalog_from_mcp(servers, min_description_length=1).tools
    return dataclasses.replace(requests, name=MIXED_NAME, tools=tools)
