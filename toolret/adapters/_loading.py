"""Load a catalog from a command-line spec: ``package.module:attribute`` or a JSON file of tools."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from toolret._catalog import Catalog
from toolret.errors import CatalogSourceError

__all__ = ["load_catalog"]


def load_catalog(spec: str) -> Catalog:
    """Resolve ``spec`` to a Catalog.

    ``myapp.agents:units_catalog`` imports the module and takes the attribute (a Catalog, or a
    callable returning one). A path to a ``.json`` file reads OpenAI tools (either shape),
    Anthropic tools, one MCP ``tools/list`` result or JSON-RPC response (its tools named
    ``<file stem>__<tool>``), or a fleet: ``{"server": <tools/list result, or its list of
    tools>, ...}``, tools named ``server__tool`` (``catalog_from_mcp``).
    """
    path = Path(spec)
    if path.suffix == ".json" or path.is_file():
        return _from_json(path)
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        raise CatalogSourceError(
            f"catalog spec {spec!r} is neither a JSON file nor 'package.module:attribute'"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise CatalogSourceError(
            f"cannot import {module_name!r} for catalog {spec!r}: {error}"
        ) from error
    try:
        value: Any = getattr(module, attribute)
    except AttributeError as error:
        raise CatalogSourceError(
            f"module {module_name!r} has no attribute {attribute!r}"
        ) from error
    if callable(value) and not isinstance(value, Catalog):
        value = value()
    if not isinstance(value, Catalog):
        raise CatalogSourceError(f"{spec!r} is a {type(value).__name__}, not a toolret Catalog")
    return value


def _from_json(path: Path) -> Catalog:
    from toolret.adapters import catalog_from_anthropic, catalog_from_mcp, catalog_from_openai

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CatalogSourceError(f"cannot read tools from {path}: {error}") from error
    if isinstance(data, dict) and ("tools" in data or "result" in data):
        return catalog_from_mcp({path.stem: data})
    if isinstance(data, dict) and data and all(isinstance(v, list | dict) for v in data.values()):
        return catalog_from_mcp(data)
    if isinstance(data, list) and data and isinstance(data[0], dict):
        first = data[0]
        if "input_schema" in first:
            return catalog_from_anthropic(data)
        return catalog_from_openai(data)
    raise CatalogSourceError(
        f"{path} holds neither a list of OpenAI/Anthropic tools, an MCP tools/list result, "
        'nor a fleet of them ({"server": [tools], ...})'
    )
