"""Several ``toolret serve`` processes on one Postgres, and a restart, as behind a load balancer.

A catalog registered through one process must build the same tools, byte for byte, in every
other process and after a restart, or the others rank documents that have no vectors. The
catalog here is OpenAI JSON whose parameters are listed in an unsorted order, as real tool JSON
is: a store that reorders object keys (``jsonb``) gives the other processes other documents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.support.serve_process import DEADLINE, start_serve, stop_serve, wait_ready
from tests.support.service_catalog import MESSAGES, TOOLS

K = 2
CORE = ["find_records", "get_record"]
# Names whose given order is neither sorted nor jsonb's order (shorter keys first).
PARAMETERS = ("record_identifier", "object", "fields_to_change", "id", "zone", "amount_limit")


def unsorted_tools() -> list[dict[str, Any]]:
    """16 OpenAI tools, each with parameters listed in an order no store would sort them into."""
    tools = []
    for position, tool in enumerate(TOOLS[:16]):
        names = PARAMETERS[position % 3 :] + PARAMETERS[: position % 3]
        properties = {
            name: {"type": "string", "description": f"the {name.replace('_', ' ')} to use"}
            for name in names
        }
        parameters = {"type": "object", "properties": properties, "required": [names[0]]}
        function = {"name": tool.name, "description": tool.description, "parameters": parameters}
        tools.append({"type": "function", "function": function})
    return tools


def select(url: str, message: str) -> dict[str, Any]:
    response = httpx.post(
        f"{url}/v1/select", json={"catalog": "crm", "message": message, "k": K}, timeout=DEADLINE
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_every_process_and_a_restart_select_what_the_registering_process_selects(
    database_url: str, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.txt"
    first_url, first = start_serve(database_url, stderr)
    second_url, second = start_serve(database_url, stderr)
    try:
        wait_ready(second_url)  # as a load balancer would: a warming process may fall open
        registration = {"format": "openai", "tools": unsorted_tools(), "core": CORE}
        registered = httpx.post(f"{first_url}/v1/catalogs/crm", json=registration, timeout=DEADLINE)
        assert registered.status_code == 201, registered.text
        assert registered.json()["indexing"]["state"] == "indexed"

        expected = {message: select(first_url, message) for message in MESSAGES}
        for body in expected.values():
            assert body["mode"] == "narrowed", body
            assert len(body["names"]) <= len(CORE) + K, body
        for message, body in expected.items():
            assert select(second_url, message)["names"] == body["names"], message

        assert stop_serve(first) == 0
        restarted_url, first = start_serve(database_url, stderr)
        wait_ready(restarted_url)
        for message, body in expected.items():
            again = select(restarted_url, message)
            assert again["mode"] == "narrowed", again
            assert again["names"] == body["names"], message
    finally:
        stop_serve(first)
        stop_serve(second)


def test_a_fresh_process_answers_its_first_select_of_a_registered_catalog(
    database_url: str, tmp_path: Path
) -> None:
    """A process started after the catalog was registered (a scale-out) selects it at once:
    its first look-up opens the registry's first connection, which must not be held to the
    share of the budget meant for re-reading a catalog already built (that one has a fallback,
    this one has none: a 503 with no names). A budget of 200 ms makes the look-up's share
    (50 ms) shorter than opening the first connection takes here, as 1.5 s does under heavy
    load; the service opens it before serving."""
    stderr = tmp_path / "stderr.txt"
    first_url, first = start_serve(database_url, stderr)
    try:
        registration = {"format": "openai", "tools": unsorted_tools(), "core": CORE}
        registered = httpx.post(f"{first_url}/v1/catalogs/crm", json=registration, timeout=DEADLINE)
        assert registered.status_code == 201, registered.text
        for _ in range(3):
            url, fresh = start_serve(database_url, stderr, TOOLRET_TIME_BUDGET_MS="200")
            try:
                answer = httpx.post(
                    f"{url}/v1/select",
                    json={"catalog": "crm", "message": MESSAGES[0], "k": K},
                    timeout=DEADLINE,
                )
            finally:
                stop_serve(fresh)
            assert answer.status_code == 200, answer.text
            assert set(CORE) <= set(answer.json()["names"]), answer.text
    finally:
        stop_serve(first)
