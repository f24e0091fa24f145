"""Jobs that survive any process: one runtime for every kind, a durable queue with leases,
checkpoints and workers.

A kind (kind.py) declares its typed params, result and checkpoint and its `run`; `Jobs`
(runtime.py) starts, runs, waits on, follows and cancels jobs of every kind; the queue is the
job store (store.py: SQLite embedded, Redis Streams scaled out); an `Executor` runs one
claimed job under its lease; a `Worker` claims jobs of any registered kind until it is told
to stop.
"""

from .executor import Executor
from .kind import JobContext, Kind, Kinds, Outcome
from .runtime import Jobs
from .worker import Worker

__all__ = ["Executor", "JobContext", "Jobs", "Kind", "Kinds", "Outcome", "Worker"]
