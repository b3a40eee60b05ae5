"""Registered catalogs across processes: how long a process serves the catalog it built.

Two registries on one database stand for two ``toolret serve`` processes; a clock of the test's
own decides when the recheck interval has passed.
"""

from __future__ import annotations

from tests.support.service_catalog import registration
from toolret.service._catalogs import CatalogRegistry, content_hash
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


def test_the_content_hash_ignores_key_order_and_follows_every_field() -> None:
    body = registration()
    reordered = CatalogRegistration.model_validate(dict(reversed(list(body.items()))))
    assert content_hash(CatalogRegistration.model_validate(body)) == content_hash(reordered)
    changed = CatalogRegistration.model_validate({**body, "core": ["find_records"]})
    assert content_hash(changed) != content_hash(reordered)
