"""Embedders: the bundled multilingual model and Gemini, behind one async protocol."""

from toolret.embedders.base import Embedder, Vector, Vectors, embed_role, l2_normalize
from toolret.embedders.cache import CachingEmbedder
from toolret.embedders.e5 import BundledE5Embedder
from toolret.embedders.gemini import GeminiEmbedder
from toolret.embedders.window import InputWindow

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
