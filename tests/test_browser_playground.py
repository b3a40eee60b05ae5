"""The Playground in headless Chromium: an Arabic and a Chinese message typed into the page show
the selection and the ranking ``POST /v1/select`` (explain) answers for the same request, on
``toolret serve`` with the roster and a fleet; find_tools as ``POST /v1/find_tools`` answers."""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import ARABIC, CHINESE, drive, serving
from toolret.console._render import score


def test_the_playground_shows_what_the_api_answers(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as console:
        for catalog in ("crm", "fleet"):
            capabilities = ["export records to a file"]
            shown = drive(
                "playground",
                tmp_path,
                base=console.url,
                catalog=catalog,
                messages=[ARABIC, CHINESE],
                capabilities=capabilities,
            )
            for message, page in zip((ARABIC, CHINESE), shown["asked"], strict=True):
                api = console.select(catalog, message)
                why = api["explain"]
                assert page["message"] == message
                assert page["mode"] == api["mode"] == "narrowed"
                assert page["core"] == why["core"]
                assert page["chosen"] == why["chosen"]
                assert set(page["core"]) | set(page["chosen"]) == set(api["names"])
                assert (
                    f"{api['schema_tokens']} tokens sent of {api['roster_tokens']}"
                    in (page["tokens"])
                )
                assert float(page["margin"]) == why["cut"]["margin"]
                assert why["gate"]["decision"] in page["gate"]
                assert [
                    (row["name"], row["rank"], row["score"], row["signals"], row["bound"])
                    for row in page["ranked"]
                ] == [
                    (
                        row["name"],
                        row["rank"],
                        score(row["score"]),
                        {signal: score(value) for signal, value in row["signals"].items()},
                        row["bound"] or "—",
                    )
                    for row in why["ranked"]
                ]
                assert any(not row["bound"] for row in why["ranked"])  # tools below the cut
            assert shown["asked"][0]["direction"] == "rtl"  # Arabic typed right to left
            found = console.http.post(
                "/v1/find_tools", json={"catalog": catalog, "capabilities": capabilities}
            ).json()
            assert shown["asked"][0]["found"] == [tool["name"] for tool in found["tools"]]
            assert found["tools"]
            assert shown["focused"] == "message"
            assert shown["outline"] != "none"
