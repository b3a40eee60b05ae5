"""The deployable worker entry: ``arq workers.WorkerSettings`` (from a checkout or image).

The worker's code lives in the package, ``toolret.worker``; this re-exports it so the
deployment command stays the same.
"""

from toolret.worker import WorkerSettings, shutdown, startup

__all__ = ["WorkerSettings", "shutdown", "startup"]
