"""The operator's console: why a tool was chosen, whether a catalog is healthy and indexed,
what real traffic misses, and how the service is doing.

Server-rendered pages (Mako templates and a stylesheet shipped in the package, a few lines of
JavaScript, nothing fetched at run time) that ``toolret serve`` mounts at ``/console`` and
``toolret console`` opens on a local machine. Every page has a JSON twin (``<page>.json``) made
from the same dictionary; the Playground's is the answer of ``POST /v1/select`` with
``explain: true`` (``toolret.retrieval._explain``). Read-only: nothing here writes to the store.

- ``_app``: the routes, the sign-in with the service's own tokens.
- ``_data``: what the Catalogs, Misses and Health pages read.
- ``_render``: the templates and how figures are formatted.
"""

from toolret.console._app import console_app

__all__ = ["console_app"]
