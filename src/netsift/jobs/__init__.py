"""Jobs that survive any process: a durable queue with leases, checkpoints and workers.

The queue is the job store (store/jobs.py: SQLite embedded, Redis Streams scaled out); an
`Executor` runs one claimed job under its lease; a `Worker` claims jobs of any registered
kind until it is told to stop.
"""

from .executor import Executor
from .kinds import JobContext, Kind, Kinds, Outcome
from .worker import Worker

__all__ = ["Executor", "JobContext", "Kind", "Kinds", "Outcome", "Worker"]
