"""A SQL statement with named parameters, for asyncpg, which takes parameters by position.

A statement declares its parameters by name, in order (``$1``, ``$2``… follow that order). Its
parts are written against a ``Placeholder``, which gives each name its ``$n``, and the caller
binds values by name (``Statement.arguments``). Two parts combine into one statement by naming
their parameters apart (``prefixed``): nothing counts positions or rewrites numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

__all__ = ["Placeholder", "Statement", "prefixed", "statement"]

Placeholder = Callable[[str], str]
"""A parameter's name → its placeholder in the statement being built (``$3``)."""


@dataclass(frozen=True)
class Statement:
    """SQL text and the names of its parameters, in ``$n`` order."""

    sql: str
    parameters: tuple[str, ...]

    def arguments(self, **values: object) -> list[object]:
        """The values to send, in the statement's order; a name missing or unknown raises
        ``TypeError``."""
        try:
            arguments = [values[name] for name in self.parameters]
        except KeyError:
            arguments = []
        if len(arguments) != len(values):
            missing = sorted(set(self.parameters) - values.keys())
            unknown = sorted(values.keys() - set(self.parameters))
            raise TypeError(f"statement arguments: missing {missing}, unknown {unknown}")
        return arguments


def statement(parameters: Sequence[str], build: Callable[[Placeholder], str]) -> Statement:
    """The statement ``build`` writes, its placeholders numbered in the order of ``parameters``
    (a name not declared there raises ``ValueError``)."""
    names = tuple(parameters)

    def placeholder(name: str) -> str:
        if name not in names:
            raise ValueError(f"parameter {name!r} is not declared (declared: {', '.join(names)})")
        return f"${names.index(name) + 1}"

    return Statement(build(placeholder), names)


def prefixed(placeholder: Placeholder, prefix: str, *, shared: Collection[str]) -> Placeholder:
    """``placeholder`` for a part written with its own names: each name but the ``shared``
    ones stands for ``prefix + name`` in the whole statement."""
    return lambda name: placeholder(name if name in shared else prefix + name)
