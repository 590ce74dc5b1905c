"""Where listener work runs once Slack has its ack.

The HTTP server and the Socket Mode client ack on their own threads (the app processes
before responding, and the ack waits for nothing); the work that follows — searching,
rendering, posting through a Slack that may be slow — runs here, on a pool sized for
waiting, not for CPU. ``busy`` lets the ack turn a request away with a message when the
pool and its queue are full, so a person hears "try again" instead of timing out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

LISTENER_THREADS = 32
"""Workers for what follows an ack: they mostly wait on Slack (``response_url``,
``chat.postMessage``, rate-limit sleeps), so the pool is sized for waiting, not for CPU."""
LISTENER_BACKLOG = 96
"""Requests that may queue for a worker before ``/paper`` is turned away with a message."""


class WorkPool(ThreadPoolExecutor):
    """A thread pool that knows how much work is queued or running."""

    def __init__(self, workers: int, backlog: int) -> None:
        super().__init__(max_workers=workers, thread_name_prefix="listener")
        self._limit = workers + backlog
        self._pending = 0
        self._count_lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._count_lock:
            self._pending += 1
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._finished)
        return future

    def _finished(self, _future: Future[Any]) -> None:
        with self._count_lock:
            self._pending -= 1

    def busy(self) -> bool:
        """Every worker is taken and the queue is full."""
        with self._count_lock:
            return self._pending >= self._limit


class InlineExecutor(Executor):
    """Runs each task at once on the caller's thread: the shell dispatches a request and
    prints what the app sent, so the work must be done when dispatch returns."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            future.set_exception(error)
        return future


def listener_pool() -> WorkPool:
    """The pool a served app runs its listeners on."""
    return WorkPool(LISTENER_THREADS, LISTENER_BACKLOG)


def busy_check(executor: Executor) -> Callable[[], bool]:
    """Whether ``executor`` is full: only a ``WorkPool`` counts its work; any other never is."""
    return executor.busy if isinstance(executor, WorkPool) else _never_busy


def _never_busy() -> bool:
    return False
