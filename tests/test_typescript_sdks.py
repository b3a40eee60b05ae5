"""The TypeScript client's agent loops through the Anthropic and OpenAI TypeScript SDKs (pinned
by ``clients/typescript/package-lock.json``), against the strict local model servers the Python
tests use (``tests/support/fake_llm.py``, rules in ``tests/support/llm_rules.py``), with a live
``toolret serve`` answering select and find_tools: each loop answers every tool call, and the
same rules refuse the same mistakes made by hand."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.support.fake_llm import CHAT, MESSAGES, RESPONSES, FakeLLM
from tests.support.service_catalog import registration
from tests.support.typescript import node_tests
from tests.test_typescript_client import TOKEN, environment, service
from toolret.retrieval._find_tools import FIND_TOOLS_NAME, find_tools_definition
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration


async def test_the_sdk_loops_answer_every_call_and_the_rules_refuse_mistakes(
    database_url: str, tmp_path: Path
) -> None:
    with FakeLLM() as fake:
        async with service(database_url) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
                headers = {"Authorization": f"Bearer {TOKEN}"}
                registered = await http.post(
                    "/v1/catalogs/crm", json=registration(), headers=headers
                )
                assert registered.status_code in (200, 201), registered.text
            env = environment(server, tmp_path, FAKE_LLM_URL=fake.url)
            await node_tests("anthropic", env)
            await node_tests("openai", env)
        refused = [message for _, message in fake.rejections]
        turns = {
            path: [b for b in fake.bodies(path) if len(b.get("tools", [])) > 1] for path in SHAPES
        }
        bound = {path: [_find_tools(body) for body in turns[path]] for path in SHAPES}
    assert len(refused) == 5, refused
    assert any("toolu_b" in message for message in refused)
    assert any("did not have response messages: call_b" in message for message in refused)
    assert any("required 'reasoning' item" in message for message in refused)

    # Each loop's rounds (the requests carrying the catalog's tools; the rest are the rules'
    # tests, made by hand) bind the service's find_tools definition, its description naming
    # what lies behind it ("Behind it: ..."); the Responses one keeps the strict key the SDK's
    # type needs.
    catalog = build_catalog(CatalogRegistration.model_validate(registration()))
    for path, shape in SHAPES.items():
        expected = find_tools_definition(shape, catalog)
        if shape == "openai_responses":
            expected["strict"] = None
        sent = [definition for definition in bound[path] if definition is not None]
        assert sent, path
        assert all(definition == expected for definition in sent), (path, sent[0], expected)


SHAPES = {CHAT: "openai", RESPONSES: "openai_responses", MESSAGES: "anthropic"}


def _find_tools(body: dict[str, object]) -> object:
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function", tool)
        if isinstance(function, dict) and function.get("name") == FIND_TOOLS_NAME:
            return tool
    return None
