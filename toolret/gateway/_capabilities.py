"""What the gateway tells its clients it offers, whatever transport asked.

The SDK's low-level ``Server`` derives its capabilities from the handlers it holds and the
notification options it is handed; the streamable HTTP session manager hands none, so a
client of the older protocol over ``--sessions`` was told ``listChanged: false`` and then sent
list changes. ``GatewayServer`` says the same on every path:

- ``listChanged`` for tools, prompts and resources wherever the gateway pushes changes: on the
  2026 protocol (``subscriptions/listen``), over stdio and over ``--sessions``; not to a client
  of the older protocol over stateless HTTP, where each request stands alone and nothing can be
  pushed.
- never ``resources.subscribe``: the gateway keeps one connection to each upstream for all its
  clients and does not forward resource subscriptions (docs/gateway.md, "What passes
  through"), so a 2026 ``subscriptions/listen`` is acknowledged without the resources it
  names (``listen_without_resources``), and the client knows to read them again.
"""

from __future__ import annotations

from typing import Any

from mcp import types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.subscriptions import ListenHandler, SubscriptionBus

__all__ = ["GatewayServer", "listen_without_resources"]


class GatewayServer(Server[Any]):
    """The SDK's ``Server``, announcing what the gateway does (see the module's docstring)."""

    def __init__(self, *args: Any, pushes_changes: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pushes_changes = pushes_changes
        """Whether a client of the older protocol hears list changes on its connection."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        push = self.pushes_changes
        changes = NotificationOptions(
            tools_changed=push, prompts_changed=push, resources_changed=push
        )
        capabilities = super().get_capabilities(
            changes, experimental_capabilities, extensions, protocol_version=protocol_version
        )
        resources = capabilities.resources
        if resources is None or not resources.subscribe:
            return capabilities
        unsubscribable = resources.model_copy(update={"subscribe": False})
        return capabilities.model_copy(update={"resources": unsubscribable})


def listen_without_resources(bus: SubscriptionBus) -> Any:
    """A ``subscriptions/listen`` handler on ``bus`` that honours every list change a client
    asks for and no resource subscription."""
    handler = ListenHandler(bus)

    async def listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        wanted = params.notifications.model_copy(update={"resource_subscriptions": None})
        return await handler(ctx, params.model_copy(update={"notifications": wanted}))

    return listen
