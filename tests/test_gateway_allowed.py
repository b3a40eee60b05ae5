"""``allowed`` in the gateway's configuration: its clients see, find and call only those tools.

find_tools ranks among the allowed tools exactly as it would over a catalog of just them, from
the fleet's corpus: no new corpus and no vector stored, and a tool outside the list is neither
found, nor listed as core, nor called.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from mcp import Client
from mcp.server.subscriptions import InMemorySubscriptionBus

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import alpha_server, beta_server
from tests.test_gateway import find
from toolret.adapters._mcp import catalog_from_mcp
from toolret.errors import ConfigurationError
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.retrieval._client import ToolRetrievalClient

DEADLINE = 180.0
ALLOWED = ["alpha__*", "beta__search_mail"]
PHRASES = [
    "email the whole team about the launch",
    "move my meeting with Sam to Friday",
    "find the mail Sam sent me last week",
]


async def counts(url: str) -> tuple[int, int]:
    connection = await asyncpg.connect(url)
    try:
        corpora = await connection.fetchval("SELECT count(*) FROM toolret_corpora")
        vectors = await connection.fetchval("SELECT count(*) FROM toolret_vectors")
    finally:
        await connection.close()
    return int(corpora), int(vectors)


async def test_the_gateway_ranks_lists_and_calls_only_the_allowed_tools(database_url: str) -> None:
    async with (
        serving(alpha_server(InMemorySubscriptionBus()).streamable_http_app()) as alpha,
        serving(beta_server().streamable_http_app()) as beta,
    ):
        config = parse_config(
            {
                "mcpServers": {
                    "alpha": {"url": f"{alpha.url}/mcp"},
                    "beta": {"url": f"{beta.url}/mcp"},
                },
                "core": ["alpha__list_events", "beta__send_email"],
                "allowed": ALLOWED,
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
                async with asyncio.timeout(DEADLINE):
                    await gateway.indexed.wait()
                before = await counts(database_url)
                names = [tool.name for tool in (await client.list_tools()).tools]
                found = {phrase: await find(client, phrase) for phrase in PHRASES}
                refused = await client.call_tool(
                    "call_tool",
                    {
                        "name": "beta__send_email",
                        "arguments": {"to": ["team"], "subject": "s", "body": "b"},
                    },
                )
                searched = await client.call_tool(
                    "call_tool", {"name": "beta__search_mail", "arguments": {"query": "Sam"}}
                )
                after = await counts(database_url)
            assert gateway.catalog is not None
            upstream_tools = {u.name: u.tools for u in gateway.upstreams.values()}
            alone = catalog_from_mcp(
                {
                    "alpha": upstream_tools["alpha"],
                    "beta": [t for t in upstream_tools["beta"] or () if t.name == "search_mail"],
                },
                core=["alpha__list_events"],
            )
            await retrieval.index(alone)  # its own corpus; every text's vector is stored
            expected = {
                phrase: [tool.name for tool in await retrieval.find_tools(alone, phrase)]
                for phrase in PHRASES
            }
    assert after == before, "no new corpus, no new vector"
    assert names == ["alpha__list_events", "find_tools", "call_tool"], "a core tool not allowed"
    for phrase, answer in found.items():
        assert "ranking" not in answer
        assert [tool["name"] for tool in answer["tools"]] == expected[phrase], phrase
        assert "beta__send_email" not in [tool["name"] for tool in answer["tools"]]
    assert refused.is_error
    assert "'beta__send_email' is not among the tools this gateway allows" in str(refused.content)
    assert not searched.is_error


def test_an_allowed_entry_that_cannot_match_is_an_error_naming_it() -> None:
    servers = {"alpha": {"url": "http://127.0.0.1:1/mcp"}}
    for allowed, said in (
        (["gamma__*"], "'gamma__*'"),
        (["alpha list"], "'alpha list'"),
        ("alpha__*", "not one string"),
    ):
        with pytest.raises(ConfigurationError) as caught:
            parse_config({"mcpServers": servers, "allowed": allowed})
        assert str(caught.value).startswith('"allowed"'), caught.value
        assert said in str(caught.value)
    assert parse_config({"mcpServers": servers, "allowed": ["*"]}).allowed == ("*",)
    assert parse_config({"mcpServers": servers, "allowed": ["al*"]}).allowed == ("al*",)
