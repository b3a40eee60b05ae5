"""Suggested example requests from a Gemini model, for a person to review.

``suggest_examples`` asks a Gemini model (google-genai ``generate_content``) for requests a user
might send for each tool, in each language, and returns them by tool; ``write_examples`` writes
them in the side-file format ``toolret.adapters._source.load_examples`` reads (TOML, or JSON by
the file's suffix). Nothing here touches the index: a suggestion becomes an example only when a
person keeps it in the file the catalog loads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolret._catalog import Catalog
from toolret.errors import ConfigurationError, EmbedderError

__all__ = ["DEFAULT_MODEL", "suggest_examples", "write_examples"]

DEFAULT_MODEL = "gemini-2.5-flash"
TOOLS_PER_REQUEST = 8
"""Tools described in one generation request: short prompts, answers that fit the output."""

PROMPT = """You write test requests for a tool-using assistant.
For each tool below, write {per_tool} different requests a real user might type when they need
that tool, in each listed language, written as a native speaker of that language would write them
(not translations of one another): varied wording, concrete details, no tool names.
Answer with JSON only: {{"<tool name>": {{"<language code>": ["request", ...]}}}}.
TOOLS: {names}
LANGUAGES: {languages}
PER_TOOL: {per_tool}

{descriptions}
"""


async def suggest_examples(
    catalog: Catalog,
    languages: Sequence[str],
    *,
    api_key: str,
    model: str = DEFAULT_MODEL,
    per_tool: int = 3,
    base_url: str | None = None,
    request_timeout: float = 60.0,
) -> dict[str, tuple[str, ...]]:
    """Candidate example requests per non-core tool, every language mixed, in tool order.

    Raises ``ConfigurationError`` without a key and ``EmbedderError`` (the Gemini error family)
    when the model cannot be reached or answers something that is not the JSON asked for.
    """
    if not api_key:
        raise ConfigurationError(
            "suggesting examples asks a Gemini model, so it needs GEMINI_API_KEY: set it, or "
            "write the example requests yourself"
        )
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=base_url, timeout=max(1, round(request_timeout * 1000)))
    client = genai.Client(api_key=api_key, vertexai=False, http_options=options)
    config = types.GenerateContentConfig(response_mime_type="application/json", temperature=0.9)
    tools = list(catalog.candidates)
    suggested: dict[str, tuple[str, ...]] = {}
    try:
        for start in range(0, len(tools), TOOLS_PER_REQUEST):
            batch = tools[start : start + TOOLS_PER_REQUEST]
            prompt = PROMPT.format(
                per_tool=per_tool,
                names=", ".join(tool.name for tool in batch),
                languages=", ".join(languages),
                descriptions="\n".join(f"- {tool.name}: {tool.description}" for tool in batch),
            )
            try:
                response = await client.aio.models.generate_content(
                    model=model, contents=prompt, config=config
                )
            except Exception as error:
                raise EmbedderError(f"{model} could not suggest examples: {error}") from error
            answer = _parse(response.text or "", model)
            for tool in batch:
                by_language = answer.get(tool.name)
                if not isinstance(by_language, Mapping):
                    continue
                texts = [
                    text.strip()
                    for language in languages
                    for text in _strings(by_language.get(language))
                ]
                suggested[tool.name] = tuple(dict.fromkeys(t for t in texts if t))
    finally:
        await client.aio.aclose()
    return suggested


def write_examples(path: str | Path, examples: Mapping[str, Sequence[str]]) -> Path:
    """Write ``{tool: [requests]}`` as a side file: JSON for ``.json``, else TOML."""
    file = Path(path)
    if file.suffix.lower() == ".json":
        file.write_text(
            json.dumps({k: list(v) for k, v in examples.items()}, ensure_ascii=False, indent=1)
            + "\n",
            encoding="utf-8",
        )
        return file
    lines = ["# Suggested example requests: review, keep the good ones, delete the rest."]
    for tool, texts in examples.items():
        key = tool if tool.replace("_", "").replace("-", "").isalnum() else json.dumps(tool)
        items = ", ".join(json.dumps(text, ensure_ascii=False) for text in texts)
        lines.append(f"{key} = [{items}]")
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return file


def _parse(text: str, model: str) -> Mapping[str, Any]:
    try:
        answer = json.loads(text)
    except ValueError as error:
        raise EmbedderError(f"{model} answered something that is not JSON: {error}") from error
    if not isinstance(answer, Mapping):
        raise EmbedderError(f"{model} answered JSON that is not an object of tools")
    return answer


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
