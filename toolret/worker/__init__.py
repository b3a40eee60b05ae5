"""The toolret worker: the reindex job, the maintenance cron and arq's ``WorkerSettings``.

It owns all embedding of tool descriptions: a ``reindex`` job per (model, corpus hash), a
deploy trigger at startup and an hourly cron that re-checks configured catalogs and collects
garbage. The request path never embeds a document. Deploy it with ``arq
toolret.worker.WorkerSettings`` from an installed ``toolret[worker]`` (``arq
workers.WorkerSettings`` names the same settings from a checkout). It waits out Redis and
Postgres outages (``toolret.worker._outage``).
"""

from toolret._extras import require

require("worker", "arq", "redis", purpose="the toolret worker")

from toolret.worker._settings import WorkerSettings, shutdown, startup  # noqa: E402

__all__ = ["WorkerSettings", "shutdown", "startup"]
