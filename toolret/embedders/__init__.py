"""Embedders: the bundled multilingual model and Gemini, behind one async protocol."""

from toolret.embedders._base import Embedder, Vector, Vectors, embed_role, l2_normalize
from toolret.embedders._cache import CachingEmbedder
from toolret.embedders._e5 import BundledE5Embedder
from toolret.embedders._gemini import GeminiEmbedder
from toolret.embedders._window import InputWindow

__all__ = [
    "BundledE5Embedder",
    "CachingEmbedder",
    "Embedder",
    "GeminiEmbedder",
    "InputWindow",
    "Vector",
    "Vectors",
    "embed_role",
    "l2_normalize",
]
