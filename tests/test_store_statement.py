"""Statements with named parameters: numbered in the order declared, bound by name, combined by
naming one part's parameters apart (``toolret.store._statement``)."""

from __future__ import annotations

import re

import pytest

from toolret._profile import ToolScore
from toolret.store._read import NAMED, ranking_statement
from toolret.store._sql import EXACT_PARAMETERS, INDEX_PARAMETERS
from toolret.store._statement import prefixed, statement


def test_placeholders_follow_the_declared_order_and_values_are_bound_by_name() -> None:
    built = statement(("a", "b"), lambda p: f"SELECT {p('b')}, {p('a')}, {p('b')}")
    assert built.sql == "SELECT $2, $1, $2"
    assert built.arguments(b="second", a="first") == ["first", "second"]


def test_a_missing_or_unknown_name_raises() -> None:
    built = statement(("a", "b"), lambda p: f"SELECT {p('a')}, {p('b')}")
    with pytest.raises(TypeError, match=r"missing \['b'\], unknown \['c'\]"):
        built.arguments(a=1, c=2)
    with pytest.raises(ValueError, match="'undeclared' is not declared"):
        statement(("a",), lambda p: p("undeclared"))


def test_a_prefixed_part_shares_only_the_names_it_is_told_to() -> None:
    def part(p: object) -> str:
        assert callable(p)
        return f"{p('query')} {p('limit')}"

    built = statement(
        ("query", "limit", "inner_limit"),
        lambda p: f"{part(p)} | {part(prefixed(p, 'inner_', shared={'query'}))}",
    )
    assert built.sql == "$1 $2 | $1 $3"


@pytest.mark.parametrize("index", [None, (12, 3)])
@pytest.mark.parametrize("score", [ToolScore("max"), ToolScore("blend")])
def test_every_ranking_statement_numbers_each_declared_parameter_once(
    index: tuple[int, int] | None, score: ToolScore
) -> None:
    """The statements the store prepares: ``$1``… ``$n`` all used, and no other."""
    for named in (False, True):
        built = ranking_statement("m@384", 384, score, index, named)
        own = EXACT_PARAMETERS if index is None else INDEX_PARAMETERS
        extra = [NAMED + n for n in EXACT_PARAMETERS if n != "query"] if named else []
        assert built.parameters == (*own, *extra)
        used = {int(n) for n in re.findall(r"\$(\d+)", built.sql)}
        assert used == set(range(1, len(built.parameters) + 1))
