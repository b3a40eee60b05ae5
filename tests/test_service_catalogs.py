"""Registered catalogs across processes: how long a process serves the catalog it built.

Two registries on one database stand for two ``toolret serve`` processes; a clock of the test's
own decides when the recheck interval has passed.
"""

from __future__ import annotations

from typing import Any

from tests.support.service_catalog import registration
from toolret.service._catalogs import (
    CatalogRegistry,
    build_catalog,
    content_hash,
    from_stored,
    stored_text,
)
from toolret.service._models import CatalogRegistration


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_replaced_catalog_is_served_by_another_process_once_its_recheck_is_due(
    database_url: str,
) -> None:
    clock = Clock()
    first = CatalogRegistry.open(database_url, time_budget=10.0, recheck=1.0, clock=clock)
    second = CatalogRegistry.open(database_url, time_budget=10.0, recheck=1.0, clock=clock)
    async with first, second:
        original = CatalogRegistration.model_validate(registration())
        await first.put("crm", original)
        assert len((await second.get("crm")).core) == 3

        replaced = CatalogRegistration.model_validate(registration(core=["find_records"]))
        _, created = await first.put("crm", replaced)
        assert created is False
        assert len((await first.get("crm")).core) == 1, "the registering process: at once"
        assert len((await second.get("crm")).core) == 3, "another: within the recheck interval"
        clock.now += 1.0
        assert len((await second.get("crm")).core) == 1


def digest(body: dict[str, Any]) -> str:
    return content_hash(stored_text(CatalogRegistration.model_validate(body)))


def test_the_content_hash_ignores_field_order_and_follows_every_field_and_tool_json() -> None:
    body = registration()
    assert digest(dict(reversed(list(body.items())))) == digest(body)
    assert digest({**body, "core": ["find_records"]}) != digest(body)
    # The order of keys inside a tool's JSON is part of what was registered: parameters listed
    # in another order make other documents.
    first = body["tools"][0]
    reordered = {**body, "tools": [dict(reversed(list(first.items()))), *body["tools"][1:]]}
    assert digest(reordered) != digest(body)


def test_the_stored_text_builds_the_tools_that_were_sent() -> None:
    body = registration()
    sent = build_catalog(CatalogRegistration.model_validate(body))
    stored = from_stored(stored_text(CatalogRegistration.model_validate(body)))
    assert [t.input_schema for t in stored] == [t.input_schema for t in sent]
    assert stored.corpus_hash("m") == sent.corpus_hash("m")
