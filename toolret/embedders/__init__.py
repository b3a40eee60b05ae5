"""Embedders behind one async protocol: the bundled multilingual model, Gemini, and OpenAI's
embeddings API (OpenAI, Azure OpenAI, any OpenAI-compatible server) with what toolret knows of
each model it may serve (``_conventions``)."""

from toolret.embedders._azure import AzureOpenAIEmbedder
from toolret.embedders._base import Embedder, Vector, Vectors, embed_role, l2_normalize
from toolret.embedders._cache import CachingEmbedder
from toolret.embedders._e5 import BundledE5Embedder
from toolret.embedders._gemini import GeminiEmbedder
from toolret.embedders._openai import OpenAIEmbedder
from toolret.embedders._window import InputWindow

__all__ = [
    "AzureOpenAIEmbedder",
    "BundledE5Embedder",
    "CachingEmbedder",
    "Embedder",
    "GeminiEmbedder",
    "InputWindow",
    "OpenAIEmbedder",
    "Vector",
    "Vectors",
    "embed_role",
    "l2_normalize",
]
