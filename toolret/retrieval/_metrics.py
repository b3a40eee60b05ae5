"""Metrics and traces of the request path, through ``opentelemetry-api``.

No-op unless the application installs an OpenTelemetry SDK (instruments created here bind to
it whenever it is installed). What is recorded: selection latency, selections by mode and
reason, tools bound per selection, the tokens of the definitions sent and saved against the
full roster (``toolret.retrieval._tokens``), and the time of each step (query embedding, database).
Never any message text: messages are customer data. Tool names, model ids and corpus hashes
are not.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar

from opentelemetry import metrics, trace

from toolret.retrieval._selection import Selection

__all__ = [
    "record_feedback",
    "record_feedback_dropped",
    "record_promoted",
    "record_selection",
    "record_step",
    "span",
    "steps_recorded",
    "tracer",
]

_meter = metrics.get_meter("toolret")
tracer = trace.get_tracer("toolret")
"""Spans: ``toolret.select``, with ``toolret.embed_query`` and ``toolret.rank_sql`` inside."""
_NO_SPAN = nullcontext(trace.INVALID_SPAN)


def span(name: str) -> AbstractContextManager[trace.Span]:
    """``tracer.start_as_current_span(name)`` once a tracer provider is installed; before, a
    span that records nothing, at once (the API's no-op span costs ~7 µs a span on the request
    path, and the current span stays the caller's, as the no-op one would carry it)."""
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return _NO_SPAN
    return tracer.start_as_current_span(name)


_duration = _meter.create_histogram(
    "toolret.selection.duration",
    unit="ms",
    description="Time to choose the tools of one turn, fail-open included",
)
_selections = _meter.create_counter(
    "toolret.selections",
    unit="{selection}",
    description="Selections by mode (narrowed, passthrough, full) and fail-open reason",
)
_tools_bound = _meter.create_histogram(
    "toolret.selection.tools_bound",
    unit="{tool}",
    description="Tools sent to the model per selection",
)
_schema_tokens = _meter.create_histogram(
    "toolret.selection.schema_tokens",
    unit="{token}",
    description="Tokens of the tool definitions sent to the model per selection",
)
_tokens_saved = _meter.create_counter(
    "toolret.selection.tokens_saved",
    unit="{token}",
    description="Tokens of tool definitions not sent, against the full roster",
)
_unranked_tools = _meter.create_counter(
    "toolret.selection.unranked_tools",
    unit="{tool}",
    description="Tools a narrowed selection bound unranked because they have no vector yet",
)
_step_duration = _meter.create_histogram(
    "toolret.selection.step.duration",
    unit="ms",
    description="Time of one request-path step: embed (the query) or database (the ranking query)",
)


def record_selection(selection: Selection) -> None:
    """Count one selection and record its latency, how many tools it bound, and the tokens
    of the definitions it sent and saved."""
    attributes = {
        "toolret.mode": selection.mode.value,
        "toolret.reason": selection.reason.value if selection.reason is not None else "none",
    }
    _selections.add(1, attributes)
    _duration.record(selection.elapsed_ms, attributes)
    _tools_bound.record(len(selection.tools), attributes)
    if selection.unranked:
        _unranked_tools.add(len(selection.unranked), attributes)
    if selection.schema_tokens is not None:
        counted = {**attributes, "toolret.tokenizer": selection.tokenizer or "estimate"}
        _schema_tokens.record(selection.schema_tokens, counted)
        _tokens_saved.add(max(0, selection.tokens_saved or 0), counted)


_steps: ContextVar[dict[str, float] | None] = ContextVar("toolret_steps", default=None)


def record_step(step: str, milliseconds: float) -> None:
    """Record the duration of one request-path step (``embed`` or ``database``), and add it
    to the steps an explanation collects (``steps_recorded``) when one does."""
    _step_duration.record(milliseconds, {"toolret.step": step})
    steps = _steps.get()
    if steps is not None:
        steps[step] = steps.get(step, 0.0) + milliseconds


@contextmanager
def steps_recorded() -> Iterator[dict[str, float]]:
    """The milliseconds of each step recorded inside the block (summed by step): how an
    explanation (``toolret.retrieval._explain``) times the selection it explains."""
    steps: dict[str, float] = {}
    token = _steps.set(steps)
    try:
        yield steps
    finally:
        _steps.reset(token)


_feedback_hits = _meter.create_counter(
    "toolret.feedback.hits",
    unit="{tool}",
    description="Called tools the selection had bound",
)
_feedback_misses = _meter.create_counter(
    "toolret.feedback.misses",
    unit="{tool}",
    description="Called tools the selection had not bound (found through find_tools or later)",
)
_find_tools_calls = _meter.create_counter(
    "toolret.feedback.find_tools_calls",
    unit="{call}",
    description="find_tools calls in reported turns",
)
_feedback_dropped = _meter.create_counter(
    "toolret.feedback.dropped",
    unit="{report}",
    description="Feedback reports dropped: buffer_full, redis_unavailable, no_vector, closed",
)
_promoted = _meter.create_counter(
    "toolret.feedback.promoted_vectors",
    unit="{vector}",
    description="Miss vectors the worker promoted to learned example vectors",
)


def record_feedback(hits: int, misses: int, find_tools_calls: int) -> None:
    """Count one reported turn's hits, misses and find_tools calls."""
    _feedback_hits.add(hits)
    _feedback_misses.add(misses)
    _find_tools_calls.add(find_tools_calls)


def record_feedback_dropped(reason: str) -> None:
    """Count a feedback report that was not sent, by reason."""
    _feedback_dropped.add(1, {"toolret.reason": reason})


def record_promoted(vectors: int) -> None:
    """Count vectors promoted to learned examples (in the worker)."""
    _promoted.add(vectors)
