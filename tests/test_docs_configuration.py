"""The configuration guide against the settings objects, and the README's short table against it.

``docs/configuration.md`` lists every variable toolret reads: each field of ``Settings`` and
``ServiceSettings`` under the name an operator sets (the unprefixed one where there is one), the
few read outside them, and nothing else; a default written as a plain value is the field's
default. The README keeps only the five variables a first user sets, each one the guide has.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from toolret._settings import NEXT_PREFIX, Settings
from toolret.embedders._e5 import OMP_DEFAULTS
from toolret.service._settings import ServiceSettings

REPO = Path(__file__).resolve().parent.parent
GUIDE = (REPO / "docs" / "configuration.md").read_text("utf-8")
README = (REPO / "README.md").read_text("utf-8")
README_VARIABLES = 5
GATEWAY_TOKENS = ("TOOLRET_GATEWAY_TOKENS", REPO / "toolret" / "cli" / "_gateway.py")
READ_ELSEWHERE = {f"{NEXT_PREFIX}EMBEDDER", *OMP_DEFAULTS, GATEWAY_TOKENS[0]}
"""Variables read outside the settings objects: the next embedder's switch, the bundled model's
OpenMP defaults, ``toolret gateway``'s tokens (read where the command starts)."""


def _rows(document: str) -> list[tuple[list[str], str]]:
    """(variables, default cell) of each row of the document's configuration tables."""
    text = re.sub(r"```.*?```", "", document, flags=re.DOTALL)
    rows = []
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows.append((re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[0]), cells[1]))
    return rows


def _fields() -> dict[str, FieldInfo]:
    """Each settings field by the variable an operator sets for it."""
    found: dict[str, FieldInfo] = {}
    objects: list[tuple[type[BaseSettings], str]] = [
        (Settings, "TOOLRET_"),
        (ServiceSettings, "TOOLRET_SERVE_"),
    ]
    for settings, prefix in objects:
        for name, field in settings.model_fields.items():
            choices = getattr(field.validation_alias, "choices", None)
            variable = str(choices[-1]) if choices else f"{prefix}{name.upper()}"
            found[variable] = field
    return found


def _written(value: Any) -> str:
    """A default as the guide writes it: ``1``/``0`` for booleans, ``7`` for 7.0."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def test_every_setting_is_documented_and_nothing_else() -> None:
    documented = {name for names, _ in _rows(GUIDE) for name in names}
    fields = _fields()
    assert set(fields) - documented == set(), "settings the guide does not list"
    assert documented - set(fields) - READ_ELSEWHERE == set(), "listed, never read"
    assert documented >= READ_ELSEWHERE
    variable, module = GATEWAY_TOKENS
    assert f'os.environ.get("{variable}"' in module.read_text("utf-8")


def test_a_plain_default_in_the_guide_is_the_fields_default() -> None:
    fields = _fields()
    compared = 0
    for names, cell in _rows(GUIDE):
        values = re.findall(r"`([^`]*)`", cell)
        if not re.fullmatch(r"`[^`]*`(, `[^`]*`)*", cell) or len(values) != len(names):
            continue  # a default described in words ("the model's own size")
        for name, value in zip(names, values, strict=True):
            field = fields.get(name)
            if field is not None and field.default_factory is None:
                assert _written(field.default) == value, name
                compared += 1
    assert compared >= 20


def test_the_readme_keeps_the_five_variables_a_first_user_sets() -> None:
    section = README.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = _rows(section)
    assert len(rows) == README_VARIABLES
    documented = {name for names, _ in _rows(GUIDE) for name in names}
    assert {name for names, _ in rows for name in names} <= documented
    assert "(docs/configuration.md)" in section


def test_the_guide_names_what_selects_an_embedder() -> None:
    embedder = {
        name
        for names, _ in _rows(GUIDE)
        for name in names
        if re.search(r"EMBEDD|OPENAI|AZURE|GEMINI", name)
    }
    assert {"TOOLRET_EMBEDDER", "OPENAI_BASE_URL", "TOOLRET_NEXT_EMBEDDER"} <= embedder
