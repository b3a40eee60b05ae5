"""The lexical index: a tokenizer that keeps every language; BM25 over names, descriptions,
keywords and examples, on informative words only; hybrid fusion."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret._profile import RetrievalProfile
from toolret.retrieval._lexical import BM25Index, catalog_index, fuse, hybrid_weight, tokenize


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


def test_bm25_reads_a_tools_parameters() -> None:
    """A third-party tool often says in its parameters what its description leaves out."""
    from toolret import Tool

    schema = {"properties": {"ingredient": {"description": "a food to find recipes with"}}}
    tools = [
        Tool("kitchen__search", "Search", input_schema=schema),
        Tool("maps__search", "Search", input_schema={"properties": {"city": {}}}),
    ]
    index = BM25Index(tools)
    assert index.search("recipes with beef", 1)[0][0] == "kitchen__search"
    assert index.search("which city", 1)[0][0] == "maps__search"


def test_bm25_returns_nothing_without_overlap() -> None:
    index = BM25Index(crm_catalog().tools)
    assert index.search("zzzz qqqq", 5) == []
    assert index.scores("").tolist() == [0.0] * len(index.names)


def test_only_informative_words_score() -> None:
    """English stopwords, and words in more than 30% of the tools, are no evidence."""
    index = BM25Index(crm_catalog().tools)
    assert index.informative("the record of it") == []  # stopwords, and in most tools
    assert index.informative("Export the CSV") == ["export", "csv"]
    assert index.scores("the record of it").tolist() == [0.0] * len(index.names)


def test_examples_give_bm25_words_in_the_users_language() -> None:
    tools = [
        dataclasses.replace(tool, examples=("bu kaydı sil",))
        if tool.name == "delete_record"
        else tool
        for tool in CRM_TOOLS
    ]
    assert BM25Index(tools).search("şu kaydı sil lütfen", 1)[0][0] == "delete_record"
    assert BM25Index(CRM_TOOLS).search("şu kaydı sil lütfen", 1) == []


def test_fuse_adds_the_weighted_lexical_share_and_leaves_dense_alone_without_signal() -> None:
    dense = {"a": 0.80, "b": 0.79, "c": 0.70}
    assert fuse(dense, {"a": 0.0, "b": 0.0, "c": 0.0}, 0.03) == dense
    fused = fuse(dense, {"a": 0.0, "b": 4.0, "c": 2.0}, 0.03)
    assert fused == pytest.approx({"a": 0.80, "b": 0.82, "c": 0.715})


def test_the_lexical_weight_grows_past_five_informative_words() -> None:
    """A long message's one vector blurs what it asks for, while BM25 sums each word's
    evidence: past ``lexical_words`` distinct informative words the weight grows as their
    square."""
    profile = RetrievalProfile()
    assert [profile.lexical_weight_for(n) for n in (0, 1, 5)] == [0.015] * 3
    assert profile.lexical_weight_for(10) == pytest.approx(0.06)
    fixed = dataclasses.replace(profile, lexical_growth=0.0)
    assert fixed.lexical_weight_for(30) == 0.015
    catalog = crm_catalog()
    short = "export the records to a csv file"
    long = "export the contact records to a csv file, then email the company and add a comment"
    assert catalog_index(catalog).words(short) == 4
    assert catalog_index(catalog).words(long) > profile.lexical_words
    assert hybrid_weight(catalog, short, profile) == 0.015
    words = catalog_index(catalog).words(long)
    assert hybrid_weight(catalog, long, profile) == pytest.approx(0.015 * (words / 5) ** 2)


@pytest.mark.parametrize(
    ("field", "value"),
    [("lexical_weight", -0.1), ("lexical_words", 0.0), ("lexical_growth", -1.0)],
)
def test_a_profile_refuses_a_lexical_rule_it_cannot_apply(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        RetrievalProfile(**{field: value})
