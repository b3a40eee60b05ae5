"""What the README and the guides say, as text: a first read that stays short, links that lead
somewhere, and prose that says what is true rather than which ticket changed it."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
GUIDES = sorted((REPO / "docs").glob("*.md"))
MAX_README_LINES = 249
ISSUE_NUMBER = re.compile(r"issue ?#?[0-9]", re.IGNORECASE)
TEXT_SUFFIXES = {".md", ".py", ".ts", ".toml", ".yml", ".yaml", ".ini", ".cfg", ".txt", ".sh"}
OUTSIDE = re.compile(r"shared/DESIGN|REFERENCE\.md|DESIGN contract|seeds?'|seed 00\d")
"""Documents that are not in the repository: a reader of the checkout cannot follow them."""
HISTORY = re.compile(r"re-measured|former default|previous default|formerly|until issue", re.I)
"""How a thing came to be: the commit log's to tell, not the guides'."""
SKIPPED = {".git", ".venv", "venv", "node_modules", "build", "dist", "__pycache__", ".mypy_cache"}


def _written_files() -> list[Path]:
    """Every file of the checkout a person wrote: documents, code with its docstrings and
    comments, configuration (not virtualenvs, builds, caches or installed node packages)."""
    found = []
    for path in REPO.rglob("*"):
        parts = set(path.relative_to(REPO).parts)
        if parts & SKIPPED or any(part.endswith((".egg-info", "_cache")) for part in parts):
            continue
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or path.name == "Makefile"):
            found.append(path)
    return found


def test_no_document_docstring_or_comment_names_an_issue_number() -> None:
    files = _written_files()
    assert README in files
    assert set(GUIDES) <= set(files)
    named = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert named == []


def test_the_readme_and_guides_cite_nothing_outside_and_tell_no_history() -> None:
    cited = [
        f"{document.name}:{number}: {line.strip()}"
        for document in [README, *GUIDES]
        for number, line in enumerate(document.read_text("utf-8").splitlines(), 1)
        if OUTSIDE.search(line) or HISTORY.search(line)
    ]
    assert cited == []


def test_the_readme_is_a_first_read() -> None:
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES
    headings = [line for line in lines if line.startswith("## ")]
    for needed in ("## Two commands", "## A selection", "## An agent service", "## Configuration"):
        assert needed in headings
    assert headings[-1] == "## Guides"


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(document: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", document.read_text("utf-8"), flags=re.DOTALL)
    return {_anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def test_every_link_between_the_docs_leads_to_a_file_and_a_heading_that_exist() -> None:
    broken = []
    for document in [README, *GUIDES]:
        for target in re.findall(r"\]\(([^)]+)\)", document.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            linked = (document.parent / path).resolve() if path else document
            if not linked.exists():
                broken.append(f"{document.name}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{document.name}: {target} (no such heading)")
    assert broken == []


def test_the_readme_links_every_guide() -> None:
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", README.read_text("utf-8")))
    assert linked == {guide.name for guide in GUIDES}
