"""Example requests per demo tool; they live in the package (``toolret.demo_examples``)."""

from toolret.demo_examples import EXAMPLES

__all__ = ["EXAMPLES"]
