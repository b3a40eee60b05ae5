"""Embeddings from an Azure OpenAI deployment, through the SDK's ``AsyncAzureOpenAI``.

Everything but the client is ``OpenAIEmbedder``'s: batching, retries, windows, checks. Azure
names a deployment in the URL (``/openai/deployments/<deployment>/embeddings?api-version=…``)
and takes its key in an ``api-key`` header; the SDK builds both.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from toolret._extras import require
from toolret.embedders._openai import OpenAIEmbedder
from toolret.errors import EmbedderUnavailableError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["AzureOpenAIEmbedder"]


class AzureOpenAIEmbedder(OpenAIEmbedder):
    """Embeddings from an Azure OpenAI deployment of ``model``.

    ``deployment`` defaults to the model's name; ``endpoint``, ``api_key`` and ``api_version``
    to the SDK's ``AZURE_OPENAI_ENDPOINT``, ``AZURE_OPENAI_API_KEY`` (or
    ``AZURE_OPENAI_AD_TOKEN``) and ``OPENAI_API_VERSION``. Vectors are keyed by the endpoint's
    host and the model, not the deployment's name.
    """

    provider = "Azure OpenAI"

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        dimension: int | None = None,
        *,
        deployment: str | None = None,
        endpoint: str | None = None,
        api_key: str | None = None,
        api_version: str | None = None,
        **options: Any,
    ) -> None:
        self.deployment = deployment or model
        self._azure = (endpoint, api_version)
        super().__init__(model, dimension, api_key=api_key, **options)

    def _create_client(
        self, api_key: str | None, base_url: str | None, timeout: float, max_retries: int
    ) -> AsyncOpenAI:
        require("openai", "openai", "bpe_openai", purpose="Azure OpenAI embeddings")
        import openai

        endpoint, api_version = self._azure
        endpoint = endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT")
        if not endpoint:
            raise EmbedderUnavailableError(
                "no Azure OpenAI endpoint: set AZURE_OPENAI_ENDPOINT",
                model_id=f"azure/{self.model}",
            )
        try:
            return openai.AsyncAzureOpenAI(
                azure_endpoint=endpoint,
                api_key=api_key,
                api_version=api_version,
                timeout=timeout,
                max_retries=max_retries,
            )
        except openai.OpenAIError as error:
            raise EmbedderUnavailableError(
                f"Azure OpenAI is not configured: {error}", model_id=f"azure/{self.model}"
            ) from error

    def _request_model(self) -> str:
        return self.deployment

    def _variable(self, name: str) -> str:
        names = {"BASE_URL": "AZURE_OPENAI_ENDPOINT", "API_KEY": "AZURE_OPENAI_API_KEY"}
        return names.get(name, f"TOOLRET_OPENAI_{name}")
