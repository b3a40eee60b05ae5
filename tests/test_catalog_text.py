"""Characters Postgres or the model APIs cannot carry fail when the catalog is built.

NUL (Postgres text cannot store it), lone surrogates (no UTF-8 encoding exists), and the other C0
and C1 control characters and DEL; tab, newline and carriage return are text. Each field that is
stored or embedded is checked, and the error names the tool, the field and the fix.
"""

from __future__ import annotations

import dataclasses

import asyncpg
import pytest

from tests.support.tools import CRM_TOOLS
from toolret import Catalog, CatalogError, Tool, ToolTextError

GOOD = Tool(
    "attach_file",
    "Attach an uploaded file to a record so it appears in the record's files tab.",
    keywords=("upload", "document"),
    category="write",
    examples=("attach the signed lease to unit B-12",),
)


def _with(field: str, text: str) -> Tool:
    if field in ("keywords", "examples"):
        value: object = (*getattr(GOOD, field), text)
    elif field == "name":
        value = text
    else:
        value = getattr(GOOD, field) + text
    return dataclasses.replace(GOOD, **{field: value})


FIELDS = ["name", "description", "keywords", "category", "examples"]
BAD = {
    "nul": ("\x00", "NUL", "Postgres text cannot store it"),
    "lone surrogate": ("\ud83d", "lone surrogate", "read the source as UTF-8"),
    "escape (C0)": ("\x1b[31m", "control character", "remove it"),
    "form feed (C0)": ("\x0c", "control character", "remove it"),
    "DEL": ("\x7f", "control character", "remove it"),
    "C1": ("\x85", "C1 control character", "decode the source as UTF-8"),
}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("bad", list(BAD), ids=list(BAD))
def test_a_character_postgres_or_a_model_api_cannot_carry_is_rejected(field: str, bad: str) -> None:
    character, what, fix = BAD[bad]
    tool = _with(field, f"x{character}y" if field == "name" else f" and {character} more")
    with pytest.raises(ToolTextError) as raised:
        Catalog([*CRM_TOOLS, tool])
    error = raised.value
    assert isinstance(error, CatalogError)
    assert (error.tool, error.field, error.character) == (tool.name, field, character[0])
    message = str(error)
    assert repr(tool.name) in message
    assert what in message
    assert fix in message
    assert f"U+{ord(character[0]):04X}" in message


def test_tab_newline_carriage_return_and_any_script_are_text() -> None:
    tool = dataclasses.replace(
        GOOD,
        description="Attach a file.\tIt shows\r\nin the files tab: ملف، dosya, ファイル, 📎.",
        examples=("أرفق العقد الموقّع بالوحدة B-12\n", "Sözleşmeyi ekle"),
    )
    assert Catalog([*CRM_TOOLS, tool])["attach_file"] == tool


async def test_postgres_really_cannot_store_nul_or_a_lone_surrogate(database_url: str) -> None:
    """The reason for the rule, checked against the server and its driver."""
    connection = await asyncpg.connect(database_url)
    try:
        with pytest.raises(asyncpg.exceptions.CharacterNotInRepertoireError):
            await connection.fetchval("SELECT $1::text", "a\x00b")
        with pytest.raises(asyncpg.exceptions.DataError, match="surrogates not allowed"):
            await connection.fetchval("SELECT $1::text", "a\ud83db")
    finally:
        await connection.close()
