"""A catalog to register with the HTTP service: 20 tools of the demo roster as OpenAI JSON, with
three example requests each, three of them core (17 candidates, so k = 12 or less narrows)."""

from __future__ import annotations

from typing import Any

from toolret import to_openai
from toolret.demo.roster import catalog as roster

__all__ = ["CORE", "MESSAGES", "TOOLS", "registration"]

TOOLS = roster.tools[:20]
CORE = ["find_records", "get_record", "list_objects"]
MESSAGES = [
    "Delete the duplicate contact for Acme Corp",
    "احذف جهة الاتصال المكررة",
    "Müşteri kaydına yeni bir alan ekle",
    "export every deal closed last quarter to a file",
    "undo: bring back the company I removed yesterday",
]


def registration(*, core: list[str] | None = None, tools: int = 20) -> dict[str, Any]:
    """The body of ``POST /v1/catalogs/{name}`` for the first ``tools`` of these tools."""
    chosen = TOOLS[:tools]
    return {
        "format": "openai",
        "tools": to_openai(chosen),
        "core": CORE if core is None else core,
        "examples": {tool.name: list(tool.examples[:3]) for tool in chosen if tool.examples},
    }
