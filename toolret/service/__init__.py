"""``toolret serve``: selections over HTTP, for agents in any language.

One Starlette application (served by uvicorn, which the MCP SDK already brings) in front of one
``ToolRetrievalClient``. Catalogs are registered over HTTP and kept in Postgres, so any number
of processes behind a load balancer, sharing Postgres and Redis, answer alike and hold no
per-conversation state.

- ``settings``: ``ServiceSettings`` (``TOOLRET_SERVE_*``): address, tokens, body limit, drain.
- ``auth``: bearer tokens, each allowed a set of catalog names.
- ``models``: the request and response bodies (validation and the OpenAPI schemas).
- ``http``: reading a JSON body within its limits; errors as JSON naming the field.
- ``catalogs``: registered catalogs in Postgres, built once per content hash per process.
- ``inline``: indexing in the service itself what selections find unindexed (no worker).
- ``openapi``: the OpenAPI document served at ``/openapi.json``.
- ``metrics``: OpenTelemetry metrics as Prometheus text at ``/metrics``.
- ``app``: the routes and the lifespan (which flushes queued work on a graceful stop).
- ``runner``: uvicorn with the service's address rules (``toolret serve``).

Needs ``toolret[serve]``.
"""

from toolret._extras import require

require("serve", "starlette", "uvicorn", purpose="toolret serve")
