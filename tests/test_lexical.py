"""The lexical index: a tokenizer that keeps every language; BM25 over names and descriptions."""

from __future__ import annotations

import pytest

from tests.tools import crm_catalog
from toolret.lexical import BM25Index, tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("kaggle__search_datasets", ["kaggle", "search", "datasets"]),
        ("searchDatasets", ["search", "datasets"]),
        ("HTTPServer v2", ["http", "server", "v2"]),
        ("ＦＵＬＬＷＩＤＴＨ text", ["fullwidth", "text"]),
        ("Straße", ["strasse"]),
    ],
)
def test_tokenizer_splits_identifiers_and_normalizes(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    "message",
    [
        "احذف جهة الاتصال المكررة",  # Arabic
        "Yarın için müşteriyi arama görevi oluştur",  # Turkish
        "حذف رکورد مشتری",  # Persian
        "удалить запись клиента",  # Russian
    ],
)
def test_non_english_text_tokenizes_to_words(message: str) -> None:
    tokens = tokenize(message)
    assert len(tokens) == len(message.split())
    assert all(token for token in tokens)


def test_bm25_ranks_by_name_and_description() -> None:
    index = BM25Index(crm_catalog().tools)
    assert index.search("export records to csv", 1)[0][0] == "export_records"
    assert index.search("createRelation", 1)[0][0] == "create_relation"


def test_bm25_scores_a_non_latin_query_against_non_latin_descriptions() -> None:
    from toolret import Tool

    tools = [
        Tool("delete_record", "حذف سجل واحد نهائيا من النظام مثل جهة اتصال أو شركة"),
        Tool("create_record", "إنشاء سجل جديد مثل جهة اتصال أو شركة أو صفقة مع قيم الحقول"),
    ]
    assert BM25Index(tools).search("حذف سجل", 1)[0][0] == "delete_record"


def test_bm25_returns_nothing_without_overlap() -> None:
    index = BM25Index(crm_catalog().tools)
    assert index.search("zzzz qqqq", 5) == []
    assert index.scores("").tolist() == [0.0] * len(index.names)
