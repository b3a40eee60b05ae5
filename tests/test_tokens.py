"""Token accounting: every selection carries the tokens it sends and the roster's."""

from __future__ import annotations

import dataclasses

import bpe_openai
import pytest

from tests.support.tools import crm_catalog
from toolret import InMemoryRetriever, Tool
from toolret.retrieval import _tokens as tokens
from toolret.retrieval._selection import Mode


async def test_every_selection_counts_what_it_sends_and_the_roster() -> None:
    catalog = crm_catalog()
    retriever = InMemoryRetriever(mode="bm25", k=2)
    narrowed = await retriever.select(catalog, "export the records to a csv file")
    blank = await retriever.select(catalog, "")
    assert narrowed.mode is Mode.NARROWED
    assert blank.mode is Mode.FULL
    assert narrowed.schema_tokens == tokens.schema_tokens(narrowed.tools)
    assert narrowed.roster_tokens == tokens.schema_tokens(catalog.tools) == blank.schema_tokens
    assert narrowed.tokens_saved == narrowed.roster_tokens - narrowed.schema_tokens > 0
    assert blank.tokens_saved == 0


def test_the_estimate_is_utf8_bytes_over_four() -> None:
    assert tokens.estimate_tokens("abcd") == 1
    assert tokens.estimate_tokens("abcde") == 2
    assert tokens.estimate_tokens("صفقة") == 2  # four Arabic letters, two bytes each


def test_o200k_counts_what_the_tokenizer_counts() -> None:
    catalog = crm_catalog()
    tool = catalog.tools[0]
    try:
        assert tokens.load_tokenizer("o200k_base") == tokens.tokenizer_name() == "o200k_base"
        expected = len(bpe_openai.get_encoding("o200k_base").encode(tokens.tool_json(tool)))
        assert tokens.tool_tokens(tool) == expected
        ratio = tokens.schema_tokens(catalog.tools) / sum(
            tokens.estimate_tokens(tokens.tool_json(t)) for t in catalog.tools
        )
        assert 0.7 < ratio < 1.3  # the documented estimate is close on English definitions
    finally:
        tokens.reset_tokenizer()


def test_an_unknown_tokenizer_is_a_configuration_error() -> None:
    from toolret import ConfigurationError

    with pytest.raises(ConfigurationError, match="no tokenizer"):
        tokens.load_tokenizer("no_such_encoding")


def test_a_tool_is_counted_with_its_own_parameters() -> None:
    """Tools compare equal whatever their schemas; the count must not be shared between them."""
    bare = Tool(name="export_records", description="Export the records of a list to a CSV file.")
    schema = {
        "type": "object",
        "properties": {"list_id": {"type": "string", "description": "The list to export."}},
        "required": ["list_id"],
    }
    with_parameters = dataclasses.replace(bare, input_schema=schema)
    assert bare == with_parameters  # what made a cache keyed on the tool return the wrong count
    # 101 and 218 bytes of compact JSON: {"description":…,"name":…,"parameters":{…}}
    assert tokens.tool_tokens(bare) == 26
    assert tokens.tool_tokens(with_parameters) == 55
