"""The toolret worker: ``arq workers.WorkerSettings``.

It owns all embedding of tool descriptions: a ``reindex`` job per (model, corpus hash), a
deploy trigger at startup and an hourly cron that re-checks configured catalogs and collects
garbage. The request path never embeds a document.
"""

from workers.settings import WorkerSettings, shutdown, startup

__all__ = ["WorkerSettings", "shutdown", "startup"]
