"""Dense scores centred per description language: a message on a catalog partly described in
its own language no longer prefers those tools for that alone, a catalog described in one
language ranks as before, and the database client selects what the in-memory retriever does."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.embedders import CountingEmbedder, SparseCountingEmbedder
from toolret import Catalog, InMemoryRetriever, Mode, Tool
from toolret._settings import Settings
from toolret.demo.roster import CORE, TOOLS
from toolret.retrieval._centred_rank import Centrings
from toolret.retrieval._centring import GROUP_TOOLS, description_groups
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._memory import DenseIndex
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

BUDGET = 60.0
"""Generous: these tests are about what is selected, not the speed of a loaded machine."""
CHINESE = {
    "list_views": "列出某个对象的所有已保存视图（表格、看板、日历），显示名称、类型和创建者。"
    "用户想知道有哪些视图时使用。",
    "get_view": "查看一个已保存视图的完整配置：筛选条件、排序方式、显示的列、分组和布局类型。"
    "用户问某个视图显示什么内容时使用。",
    "create_view": "为某个对象新建一个已保存视图：表格、按单选字段分组的看板，"
    "或基于日期字段的日历，可设置自己的筛选和排序。",
    "update_view": "修改现有的已保存视图：添加或删除筛选条件、调整排序、显示或隐藏列、"
    "更改分组或重命名。",
    "delete_view": "删除一个已保存视图。只删除视图本身，其中显示的记录和字段不受影响。"
    "用户想清理旧的或重复的视图时使用。",
    "list_comments": "按时间倒序显示某条记录上的评论和备注，包括作者、时间以及提到的同事。",
    "add_comment": "在某条记录上发表评论或备注，可以@同事让他们收到通知，例如记录一次通话的要点。",
    "list_members": "列出工作区中的成员及其姓名、邮箱、角色和团队，"
    "用于找到合适的人来分配记录或任务。",
}
"""Eight of the roster's 39 candidates described in Chinese, as their authors would."""
ASKED = {  # Chinese messages needing a tool described in English
    "统计本周新增了多少线索": "count_records",
    "把这两个重复的联系人合并成一个": "merge_records",
    "从上传的表格导入联系人": "import_records",
    "明天提醒我给这个客户回电话": "create_task",
}
ENGLISH = ("show me the comments on this deal", "export every open deal to a spreadsheet")
ARABIC = "احذف جهة الاتصال المكررة"
"""A message in neither of the mixed roster's description languages: not centred."""


@pytest.fixture(scope="module")
def sparse_embedder() -> SparseCountingEmbedder:
    return SparseCountingEmbedder()


@pytest.fixture(scope="module")
def plain_embedder() -> CountingEmbedder:
    return CountingEmbedder()


def _mixed(described: dict[str, str] = CHINESE) -> Catalog:
    tools = [
        dataclasses.replace(t, description=described.get(t.name, t.description)) for t in TOOLS
    ]
    return Catalog(tools, core=CORE, min_description_length=20)


def test_only_a_catalog_described_in_several_languages_has_groups() -> None:
    """Two languages of at least ``GROUP_TOOLS`` candidates each; fewer Chinese descriptions,
    or a few short Latin-script ones beside long English ones, are no group of their own."""
    groups = description_groups(_mixed())
    assert groups is not None
    assert {n for n, g in groups.items() if g == "zh"} == set(CHINESE)
    assert {g for n, g in groups.items() if n not in CHINESE} == {"en"}
    assert description_groups(Catalog(TOOLS, core=CORE)) is None
    fewer = dict(list(CHINESE.items())[: GROUP_TOOLS - 1])
    assert description_groups(_mixed(fewer)) is None
    terse = {name: f"{name.replace('_', ' ')} tool" for name in list(CHINESE)[:6]}
    terse_catalog = Catalog(
        [dataclasses.replace(t, description=terse.get(t.name, t.description)) for t in TOOLS],
        min_description_length=5,
    )
    assert description_groups(terse_catalog) is None


async def test_a_chinese_message_finds_its_tool_described_in_english_beside_chinese_ones(
    plain_embedder: CountingEmbedder,
) -> None:
    """Without centring the eight Chinese-described tools fill a Chinese message's top five,
    whatever it asks (the needed tool ranked 8th to 10th)."""
    retriever = InMemoryRetriever(plain_embedder, mode="hybrid", k=5, time_budget=BUDGET, reuse=0)
    catalog = _mixed()
    for message, needed in ASKED.items():
        selection = await retriever.select(catalog, message)
        assert needed in selection.names, (message, selection.names)


async def test_a_catalog_described_in_one_language_ranks_as_without_centring(
    plain_embedder: CountingEmbedder,
) -> None:
    """The same messages on the roster as written (English descriptions), and on the roster
    with only seven tools described in Chinese (under ``GROUP_TOOLS``: no group): the plain
    dense scores."""
    retriever = InMemoryRetriever(plain_embedder, mode="dense", k=5, time_budget=BUDGET, reuse=0)
    seven = dict(list(CHINESE.items())[: GROUP_TOOLS - 1])
    for catalog in (Catalog(TOOLS, core=CORE), _mixed(seven)):
        index = await DenseIndex.build(catalog, plain_embedder)
        for message in (*ASKED, *ENGLISH):
            plain = index.scores(await plain_embedder.embed_query(message))
            selection = await retriever.select(catalog, message)
            assert selection.scores == pytest.approx({n: plain[n] for n in selection.scores})


async def test_a_message_in_neither_language_and_toolret_centring_0_rank_as_without(
    plain_embedder: CountingEmbedder,
) -> None:
    """On the mixed roster an Arabic message keeps its plain dense scores, and with
    ``TOOLRET_CENTRING=0`` a Chinese one is ranked as before (its tool out of the top five)."""
    catalog = _mixed()
    index = await DenseIndex.build(catalog, plain_embedder)
    centred = InMemoryRetriever(plain_embedder, mode="dense", k=5, time_budget=BUDGET, reuse=0)
    plain = index.scores(await plain_embedder.embed_query(ARABIC))
    selection = await centred.select(catalog, ARABIC)
    assert selection.scores == pytest.approx({n: plain[n] for n in selection.scores})
    off = InMemoryRetriever(
        plain_embedder,
        mode="hybrid",
        k=5,
        time_budget=BUDGET,
        reuse=0,
        settings=Settings(centring=False),
    )
    message, needed = next(iter(ASKED.items()))
    assert needed not in (await off.select(catalog, message)).names


@pytest.mark.parametrize("exact_limit", [10_000, 0], ids=["exact", "indexes"])
@pytest.mark.parametrize("mode", ["dense", "hybrid"])
@pytest.mark.parametrize("sparse", [False, True], ids=["plain", "sparse"])
async def test_the_client_selects_what_the_in_memory_retriever_selects_on_a_mixed_catalog(
    database_url: str,
    sparse_embedder: SparseCountingEmbedder,
    plain_embedder: CountingEmbedder,
    exact_limit: int,
    mode: str,
    sparse: bool,
) -> None:
    """Through the exact statement and through the indexes (``exact_limit=0``), with and
    without the sparse signal, Chinese and English messages: the same tools, scores and
    parts."""
    embedder = sparse_embedder if sparse else plain_embedder
    catalog = _mixed()
    memory = InMemoryRetriever(embedder, mode=mode, k=5, time_budget=BUDGET, reuse=0)  # type: ignore[arg-type]
    await memory.index(catalog)
    async with ToolRetrievalClient(
        database_url,
        embedder=embedder,
        mode=mode,  # type: ignore[arg-type]
        k=5,
        time_budget=BUDGET,
        exact_limit=exact_limit,
        reuse=0,
    ) as client:
        await client.index(catalog)
        for message in (*ASKED, *ENGLISH, ARABIC):
            want = await memory.select(catalog, message)
            got = await client.select(catalog, message)
            assert got.mode is Mode.NARROWED
            assert got.names == want.names, message
            assert got.scores == pytest.approx(want.scores, abs=1e-5)
            for name, parts in want.signals.items():
                assert got.signals[name] == pytest.approx(parts, abs=1e-5)


async def test_a_corpus_published_before_is_centred_at_once_and_an_unpublished_one_is_not(
    database_url: str, plain_embedder: CountingEmbedder
) -> None:
    """Centring reads the published corpus's description vectors (no new column, no
    migration): a corpus being indexed is ranked without it, and read again later."""
    catalog = _mixed()
    embedder = plain_embedder
    store = VectorStore.from_url(database_url)
    try:
        query = CatalogQuery.build(catalog, embedder.model_id, "query", embedder.profile)
        assert await Centrings(store).get(catalog, embedder, query) is None  # nothing published
        async with ToolRetrievalClient(
            database_url, embedder=embedder, k=5, time_budget=BUDGET, reuse=0
        ) as client:
            await client.index(catalog)
        centring = await Centrings(store).get(catalog, embedder, query)
        assert centring is not None
        assert set(centring.groups) == {"en", "zh"}
        assert centring.members("zh") == set(CHINESE)
    finally:
        await store.aclose()


def test_a_tool_in_no_group_joins_the_largest_of_its_script() -> None:
    """A lone Persian description on the mixed roster goes with neither English nor Chinese by
    language, and is centred with the largest non-Latin group (here Chinese)."""
    persian = Tool("archive_record", "یک رکورد را بایگانی کن تا از فهرست‌ها پنهان شود ولی حذف نشود.")
    catalog = Catalog([*_mixed().tools, persian], core=CORE, min_description_length=20)
    groups = description_groups(catalog)
    assert groups is not None
    assert groups["archive_record"] == "zh"


@pytest.mark.parametrize("exact_limit", [10_000, 0], ids=["exact", "indexes"])
async def test_a_cut_of_a_mixed_catalog_is_ranked_alike_by_both_retrievers(
    database_url: str, plain_embedder: CountingEmbedder, exact_limit: int
) -> None:
    """A cut (``Catalog.only``) is centred on the whole catalog's groups: the client leaves
    the tools outside the cut out of each group's statement, and equals the in-memory
    retriever."""
    catalog = _mixed()
    allowed = [*ASKED.values(), "find_records", "update_record", *list(CHINESE)[:4]]
    cut = catalog.only(allowed)
    memory = InMemoryRetriever(plain_embedder, mode="hybrid", k=3, time_budget=BUDGET, reuse=0)
    async with ToolRetrievalClient(
        database_url,
        embedder=plain_embedder,
        k=3,
        time_budget=BUDGET,
        exact_limit=exact_limit,
        reuse=0,
    ) as client:
        await client.index(catalog)
        for message in (*ASKED, *ENGLISH):
            want = await memory.select(cut, message)
            got = await client.select(cut, message)
            assert got.mode is Mode.NARROWED
            assert got.names == want.names, message
            assert set(got.names) <= set(cut.names)
            assert got.scores == pytest.approx(want.scores, abs=1e-5)
