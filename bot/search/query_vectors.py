"""Query vectors for many threads at once: the queries waiting together share one model run,
and a vector is reused for every text the model would read the same way.

Why share a run: on one thread a run of the model costs about 3 ms whatever it embeds, on top
of its cost per token, so short queries embedded together cost less each
(``bench/results/batching.md``: 3-word queries 1.7x cheaper each in runs of 4 to 16, 12-25
words 1.1x), and each one's vector is bit-identical to its vector alone
(``Embedder.embed_tokens``). Padding a short query to a long one's length costs more than the
run it saves, so a run takes only queries whose lengths are within ``PADDING_TOKENS`` of each
other.

Why nobody waits for a batch to fill: the thread that finds the model idle runs it at once, on
its own thread, with what is queued (the oldest query first); the threads that arrive while it
runs queue, and the next thread to find the model idle runs them together. A lone query runs
as soon as it comes, and the batches grow with the load.

Why a lone query may take both cores: a run that finds no other query waiting, while the
bot is quiet (``run_alone_when``: a served bot asks its listener pool, which is quiet when
it has had no other work for half a second), goes on the model's two-thread session, about
3 ms sooner for a question. Under load the second core is the listeners', so every other run
takes one thread; the vectors are the same either way.

Why key by token ids: the model sees nothing else, so texts that differ only in what the
tokenizer drops (case, accents, runs of whitespace) have the same vector, and paging through
results ("Next 5") asks again for the same text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

MAX_BATCH = 8  # beyond 8 a run saves little more per query and keeps each of them longer
PADDING_TOKENS = 8  # about the tokens one run's fixed cost would pay for

Tokens = tuple[int, ...]
Quiet = Callable[[], bool]
"""Whether nothing else needs the CPU now (``bot.slack.work.WorkPool.quiet``)."""


def always_quiet() -> bool:
    """A process that searches one query at a time (the CLI, a benchmark) is always quiet."""
    return True


def never_quiet() -> bool:
    """Until told how to know, a process may be busy."""
    return False


class TokenEmbedder(Protocol):
    def tokens(self, text: str) -> Tokens: ...

    def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray: ...


@dataclass(eq=False)
class _Pending:
    """A query queued or in a run, shared by every thread that asked for it meanwhile."""

    tokens: Tokens
    vector: np.ndarray | None = None
    error: BaseException | None = None
    done: bool = False


def batch_from(lengths: Sequence[int], limit: int = MAX_BATCH) -> list[int]:
    """The positions, among queries of these token counts in order of arrival, that one run
    takes: the oldest, then every later one that keeps the run's longest and shortest within
    ``PADDING_TOKENS`` of each other, at most ``limit`` in all."""
    low = high = lengths[0]
    taken = [0]
    for position, length in enumerate(lengths[1:], start=1):
        if len(taken) == limit:
            break
        if max(high, length) - min(low, length) <= PADDING_TOKENS:
            taken.append(position)
            low, high = min(low, length), max(high, length)
    return taken


class QueryVectors:
    """The vector of a query, batched with the queries waiting alongside it and kept for the
    ``capacity`` most recently used token sequences."""

    def __init__(self, embedder: TokenEmbedder, capacity: int, max_batch: int = MAX_BATCH) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._max_batch = max_batch
        self._lock = threading.Lock()
        self._run_ended = threading.Condition(self._lock)
        self._running = False
        self._recent: OrderedDict[Tokens, np.ndarray] = OrderedDict()
        self._unfinished: dict[Tokens, _Pending] = {}
        self._queue: list[_Pending] = []
        self._quiet: Quiet = never_quiet

    def run_alone_when(self, quiet: Quiet) -> None:
        """From now on a query that finds no other waiting, while ``quiet()``, runs as a
        lone one (``TokenEmbedder.embed_tokens``), on both cores."""
        self._quiet = quiet

    def vector(self, text: str) -> np.ndarray:
        """``text``'s unit vector (read-only: it is shared with every later caller)."""
        tokens = self._embedder.tokens(text)
        with self._lock:
            if (known := self._recent.get(tokens)) is not None:
                self._recent.move_to_end(tokens)
                return known
            pending = self._unfinished.get(tokens)
            if pending is None:
                pending = self._unfinished[tokens] = _Pending(tokens)
                self._queue.append(pending)
            while not pending.done:
                if self._running:
                    self._run_ended.wait()
                else:
                    self._run_next()
        if pending.error is not None:
            raise pending.error
        assert pending.vector is not None
        return pending.vector

    def _run_next(self) -> None:
        """Run the model on the next batch of the queue; called with the lock held, which is
        let go for the run so that others may queue meanwhile."""
        taken = batch_from([len(pending.tokens) for pending in self._queue], self._max_batch)
        batch = [self._queue[position] for position in taken]
        self._queue = [pending for pending in self._queue if pending not in batch]
        nothing_waits = len(batch) == 1 and not self._queue
        self._running = True
        self._lock.release()
        try:
            lone = nothing_waits and self._quiet()  # which may take a lock of its own
            vectors = self._embedder.embed_tokens([pending.tokens for pending in batch], lone=lone)
        except BaseException as error:  # each owner raises it from ``vector``; this thread's
            for pending in batch:  # own query may not be in the batch, and still waits its run
                pending.error = error
        else:
            for pending, vector in zip(batch, vectors, strict=True):
                vector.setflags(write=False)
                pending.vector = vector
        finally:
            self._lock.acquire()
            for pending in batch:
                pending.done = True
                del self._unfinished[pending.tokens]
                if pending.vector is not None:
                    self._recent[pending.tokens] = pending.vector
            while len(self._recent) > self._capacity:
                self._recent.popitem(last=False)
            self._running = False
            self._run_ended.notify_all()
