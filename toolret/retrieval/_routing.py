"""Routing a message to agents: the same ranking, over agent descriptions.

When the number of agents grows, a supervisor's choice of agent becomes a retrieval of its own:
the router picks an agent, and that agent's ``select`` picks its tools. ``route`` ranks agents
by their descriptions (and example requests) with any retriever — in memory, or through the
client's table, where the worker indexes the agents' catalog as it indexes tools — in the
retriever's mode, and falls open the same way: a blank message, an unindexed catalog, an
embedder or database failure, a timeout, gives **every agent**, with the reason, so the router
can still choose among all of them. Never raises.

    agents = agent_catalog({"units": "Listings, leases and buyers of a property CRM ...",
                            "billing": "Invoices, payments and refunds ..."})
    routing = await route(client, agents, message, k=1)    # routing.agents[0]: the best
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.retrieval._base import Retriever
from toolret.retrieval._selection import Mode, Reason, select_guarded

__all__ = ["Routing", "agent_catalog", "route"]


@dataclass(frozen=True)
class Routing:
    """The agents for a message: the best ``k`` first, or every agent and why."""

    agents: tuple[str, ...]
    """Best first when ranked; every agent, in the catalog's order, when not."""
    mode: Mode
    reason: Reason | None = None
    scores: Mapping[str, float] = field(default_factory=dict)

    @property
    def ranked(self) -> bool:
        """True when the agents were ranked (not every agent sent because of ``reason``)."""
        return self.mode is Mode.NARROWED


def agent_catalog(agents: Mapping[str, str] | Iterable[Tool]) -> Catalog:
    """A catalog of agents: ``{name: description}``, or ``Tool`` objects (with ``examples=``
    requests each agent serves, in its users' languages). Names follow the tool-name rule
    (``[A-Za-z0-9_-]``, at most 64); an empty description raises ``ToolDescriptionError``."""
    tools = (
        [Tool(name, description) for name, description in agents.items()]
        if isinstance(agents, Mapping)
        else list(agents)
    )
    return Catalog(tools, min_description_length=1)


async def route(retriever: Retriever, agents: Catalog, message: str, *, k: int = 1) -> Routing:
    """The ``k`` agents whose descriptions best match ``message``, best first; every agent on
    any failure, within the retriever's time budget. Build ``agents`` once
    (``agent_catalog``): the client keys what it prepares, and the worker indexes, by catalog."""
    selection = await select_guarded(
        agents,
        message,
        lambda text: retriever.rank(agents, text, k),
        k=k,
        time_budget=retriever.time_budget,
    )
    if selection.mode is not Mode.NARROWED:
        return Routing(tuple(agents.names), selection.mode, selection.reason)
    scores = selection.scores
    best = sorted(scores, key=lambda name: (-scores[name], agents.position(name)))
    return Routing(tuple(best), selection.mode, None, dict(scores))
