"""The tool model and the catalog: order, validation, corpus hash."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import (
    Catalog,
    DuplicateToolError,
    InvalidToolNameError,
    RetrievalProfile,
    Tool,
    ToolDescriptionError,
    ToolretError,
    UnknownCoreToolError,
)
from toolret._profile import LEGACY_PROFILE
from toolret._tool import (
    DEFAULT_TEMPLATE,
    LEGACY_TEMPLATE,
    check_template,
    parameter_text,
    readable_identifier,
    render,
)

MODEL = "test-model@384"
DESCRIPTION = "A description that is long enough to pass the minimum length check."


@pytest.mark.parametrize(
    ("name", "readable"),
    [
        ("create_record", "create record"),
        ("createRecord", "create record"),
        ("create-record", "create record"),
        ("github__create_issue", "github create issue"),
        ("HTTPServer", "http server"),
        ("getURLForID2", "get url for id2"),
    ],
)
def test_identifiers_become_words(name: str, readable: str) -> None:
    assert readable_identifier(name) == readable


SCHEMA = {
    "type": "object",
    "properties": {
        "profile_name": {"type": "string", "description": ""},
        "q": {"type": "string", "description": "Words to search the recipes for."},
    },
}


def test_parameters_are_written_in_words_with_their_descriptions() -> None:
    tool = Tool("recipes__suggestions", "Get Suggestions", input_schema=SCHEMA)
    assert parameter_text(tool) == "profile name, q (Words to search the recipes for.)"
    assert tool.retrieval_text == f"Get Suggestions\n{parameter_text(tool)}"
    assert render("{name}: {description}", tool) == "recipes suggestions: Get Suggestions"
    # Nothing to add for a tool without parameters, or with a schema that is not an object's.
    assert parameter_text(Tool("t", DESCRIPTION)) == ""
    assert parameter_text(Tool("t", DESCRIPTION, input_schema={"type": "string"})) == ""


def test_a_tool_without_description_or_keywords_is_its_name_and_parameters() -> None:
    tool = Tool("github__get_me", "", input_schema=SCHEMA)
    assert tool.retrieval_text.startswith("github get me\nprofile name")
    assert render(LEGACY_TEMPLATE, Tool("github__get_me", "")) == "github get me"


def test_retrieval_text_is_keywords_then_description() -> None:
    tool = Tool("createRecord", DESCRIPTION, keywords=("new", "add"), category="write")
    assert tool.retrieval_text == f"new, add\n{DESCRIPTION}"
    assert tool.retrieval_text == render(DEFAULT_TEMPLATE, tool)
    assert Tool("createRecord", DESCRIPTION).retrieval_text == DESCRIPTION  # no blank line


@pytest.mark.parametrize(
    ("template", "text"),
    [
        (LEGACY_TEMPLATE, f"create record\n{DESCRIPTION}\nnew, add\nwrite"),
        ("{name}: {description}", f"create record: {DESCRIPTION}"),
        ("{raw_name}: {description} ({keywords})", f"createRecord: {DESCRIPTION} (new, add)"),
        ("{description}\n{category}", f"{DESCRIPTION}\nwrite"),
    ],
)
def test_templates_write_the_description_document(template: str, text: str) -> None:
    tool = Tool("createRecord", DESCRIPTION, keywords=("new", "add"), category="write")
    assert render(template, tool) == text
    assert tool.documents("query", template)[0].text == text


@pytest.mark.parametrize("template", ["{name}: {summary}", "{name} only"])
def test_a_template_names_known_fields_and_holds_the_description(template: str) -> None:
    with pytest.raises(ValueError, match="template"):
        check_template(template)
    with pytest.raises(ValueError, match="template"):
        RetrievalProfile(template=template)


def test_catalog_orders_by_domain_rank_and_is_stable_within_a_domain() -> None:
    catalog = crm_catalog()
    domains = [tool.domain for tool in catalog]
    assert domains == sorted(domains, key=catalog.domain_rank.index)
    records = [tool.name for tool in catalog if tool.domain == "records"]
    assert records == ["find_records", "delete_record", "create_record"]


def test_domains_come_in_first_seen_order_unless_ranked_and_unranked_ones_follow() -> None:
    """No domain order is built in (the demo CRM's is the demo's): by default domains come as
    they first appear, still grouped; a rank orders the domains it names, the rest follow."""
    tools = [
        Tool("a_tool", DESCRIPTION, domain="zeta"),
        Tool("b_tool", DESCRIPTION, domain="meta"),
        Tool("c_tool", DESCRIPTION, domain="records"),
        Tool("d_tool", DESCRIPTION, domain="Zeta"),
    ]
    default = Catalog(tools)
    assert default.names == ["a_tool", "d_tool", "b_tool", "c_tool"]
    assert default.domain_rank == ("zeta", "meta", "records")
    ranked = Catalog(tools, domain_rank=["records", "meta"])
    assert ranked.names == ["c_tool", "b_tool", "a_tool", "d_tool"]
    assert ranked.domain_rank == ("records", "meta", "zeta")


def test_subset_is_in_catalog_order_and_byte_stable() -> None:
    catalog = crm_catalog()
    picked = ["send_email", "create_record", "inspect_schema", "create_record", "nope"]
    first = catalog.subset(picked)
    again = catalog.subset(reversed(picked))
    assert [t.name for t in first] == ["create_record", "send_email", "inspect_schema"]
    assert repr(first).encode() == repr(again).encode()


def test_core_from_flag_and_from_argument() -> None:
    catalog = Catalog(CRM_TOOLS, core=["send_email"])
    assert {t.name for t in catalog.core} == {"inspect_schema", "find_records", "send_email"}
    assert "send_email" not in {t.name for t in catalog.candidates}


def test_corpus_hash_is_stable() -> None:
    shuffled = list(reversed(CRM_TOOLS))
    assert crm_catalog().corpus_hash(MODEL) == Catalog(shuffled).corpus_hash(MODEL)
    assert crm_catalog().corpus_hash(MODEL) == Catalog(CRM_TOOLS, core=["send_email"]).corpus_hash(
        MODEL
    )


@pytest.mark.parametrize(
    "change",
    [
        {"description": DESCRIPTION},
        {"keywords": ("remove",)},
        {"category": "danger"},
        {"examples": ("get rid of this contact",)},
    ],
)
def test_corpus_hash_changes_with_any_retrieval_text(change: dict[str, object]) -> None:
    edited = Catalog([dataclasses.replace(CRM_TOOLS[2], **change), *CRM_TOOLS[3:], *CRM_TOOLS[:2]])
    legacy = (MODEL, "document", LEGACY_TEMPLATE)
    assert edited.corpus_hash(*legacy) != crm_catalog().corpus_hash(*legacy)
    if "category" not in change:  # the default template leaves the category out
        assert edited.corpus_hash(MODEL) != crm_catalog().corpus_hash(MODEL)
    else:
        assert edited.corpus_hash(MODEL) == crm_catalog().corpus_hash(MODEL)


def test_corpus_hash_changes_with_the_template() -> None:
    catalog = crm_catalog()
    assert catalog.corpus_hash(MODEL, "query", LEGACY_TEMPLATE) != catalog.corpus_hash(MODEL)


def test_corpus_hash_changes_with_model_and_example_role() -> None:
    catalog = Catalog([dataclasses.replace(t, examples=("an example",)) for t in CRM_TOOLS])
    assert catalog.corpus_hash(MODEL) != catalog.corpus_hash("other@384")
    assert catalog.corpus_hash(MODEL, "query") != catalog.corpus_hash(MODEL, "document")


def test_documents_are_content_addressed_and_carry_examples() -> None:
    tool = Tool("delete_record", DESCRIPTION, examples=("remove this contact", "سجل"))
    docs = tool.documents("query")
    assert [d.kind for d in docs] == ["description", "example", "example"]
    assert [d.role for d in docs] == ["document", "query", "query"]
    assert docs[0].key == Tool("delete_record", DESCRIPTION).documents()[0].key
    assert len({d.key for d in docs}) == 3


def test_duplicate_names_fail_at_build_time() -> None:
    with pytest.raises(DuplicateToolError, match="'delete_record' is defined twice") as caught:
        Catalog([*CRM_TOOLS, CRM_TOOLS[2]])
    assert caught.value.tool == "delete_record"


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "dot.name", "ünï"])
def test_invalid_names_fail(name: str) -> None:
    with pytest.raises(InvalidToolNameError, match="rename the tool"):
        Catalog([Tool(name, DESCRIPTION)])


@pytest.mark.parametrize(("description", "what"), [("", "an empty"), ("Deletes.", "a thin")])
def test_empty_or_thin_descriptions_fail(description: str, what: str) -> None:
    with pytest.raises(ToolDescriptionError, match=f"has {what}") as caught:
        Catalog([Tool("delete_record", description)])
    assert caught.value.tool == "delete_record"
    assert "at least 40 characters" in str(caught.value)


def test_minimum_description_length_is_configurable() -> None:
    assert len(Catalog([Tool("short_one", "Deletes.")], min_description_length=5)) == 1


def test_unknown_core_tool_fails() -> None:
    with pytest.raises(UnknownCoreToolError, match="'ghost' is not in the catalog"):
        Catalog(CRM_TOOLS, core=["ghost"])


def test_every_catalog_error_is_a_toolret_error() -> None:
    with pytest.raises(ToolretError):
        Catalog([Tool("x", "")])


def test_gemini_keeps_the_documents_it_was_indexed_with() -> None:
    """Gemini's profile is the legacy one: its corpus hashes (and vectors) stay as they were."""
    from toolret.embedders._gemini import GeminiEmbedder

    assert GeminiEmbedder.profile == LEGACY_PROFILE
    assert GeminiEmbedder.example_role == "document"
    tool = Tool("createRecord", DESCRIPTION, keywords=("new", "add"), category="write")
    before = "\n".join([readable_identifier(tool.name), DESCRIPTION, "new, add", "write"])
    assert tool.documents("document", LEGACY_TEMPLATE)[0].text == before
