"""Query vectors: batched runs give each text its own vector alone, a lone query runs at once
on its caller's thread, and texts the model reads the same share a vector.

The concurrency tests use a stand-in model whose runs can be held open, so which queries share
a run is decided by events, not by timing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from bot.search import embedding
from bot.search.embedding import DIMENSIONS, MODEL_SHA256, Embedder, ModelError, model_path
from bot.search.query_vectors import PADDING_TOKENS, QueryVectors, batch_from
from bot.search.semantic import shared_embedder

MIXED_LENGTHS = (
    "attention sink",
    "graph sparsification experts",
    "is there work using state space models like Mamba to learn time-varying Koopman"
    " operators for model predictive control?",
    "diffusion",
    "how do large language models know when they follow the instructions in a prompt",
    "watermark synthetic tabular data",
)
BATCH_TOLERANCE = 1e-6  # measured: 0.0 (bench/results/batching.md)
WAIT_SECONDS = 10.0  # a bound on waiting for another thread, never a measured time


class _HeldModel:
    """A model whose runs record their batch and thread, and can be held until released."""

    def __init__(self) -> None:
        self.runs: list[tuple[list[str], threading.Thread]] = []
        self.lone: list[bool] = []
        self.running = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self._words: dict[str, int] = {}

    def tokens(self, text: str) -> tuple[int, ...]:
        return tuple(self._words.setdefault(word, len(self._words)) for word in text.split())

    def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray:
        names = {number: word for word, number in self._words.items()}
        self.lone.append(lone)
        self.runs.append(
            ([" ".join(names[t] for t in ids) for ids in batch], threading.current_thread())
        )
        self.running.set()
        assert self.release.wait(WAIT_SECONDS)
        return np.stack([_vector_for(ids) for ids in batch])


def _vector_for(ids: Sequence[int]) -> np.ndarray:
    vector = np.zeros(DIMENSIONS, dtype=np.float32)
    vector[sum(ids) % DIMENSIONS] = len(ids)
    return vector


def _wait_until(condition: Callable[[], bool]) -> None:
    event = threading.Event()
    for _ in range(int(WAIT_SECONDS / 0.01)):
        if condition():
            return
        event.wait(0.01)
    raise AssertionError("the other threads never got there")


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return shared_embedder()


# --- the model, batched ----------------------------------------------------------------------


def test_a_batch_of_mixed_lengths_gives_each_text_its_vector_alone(embedder: Embedder) -> None:
    tokens = [embedder.tokens(text) for text in MIXED_LENGTHS]
    assert len({len(ids) for ids in tokens}) == len(tokens)
    alone = np.stack([embedder.embed_tokens([ids])[0] for ids in tokens])
    together = embedder.embed_tokens(tokens)
    np.testing.assert_allclose(together, alone, rtol=0, atol=BATCH_TOLERANCE)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, rtol=1e-5)
    reversed_order = embedder.embed_tokens(tokens[::-1])[::-1]
    np.testing.assert_allclose(reversed_order, alone, rtol=0, atol=BATCH_TOLERANCE)


def test_two_threads_give_one_threads_vectors_bit_for_bit() -> None:
    one, two = Embedder(threads=1), Embedder(threads=2)
    one.open_lone_session()  # both cores, spinning between a run's steps
    assert one.lone_session_open and not two.lone_session_open
    tokens = [one.tokens(text) for text in MIXED_LENGTHS]
    for ids in [*([ids] for ids in tokens), tokens]:  # each alone, then all in one run
        alone = one.embed_tokens(ids).tobytes()
        assert (
            alone == two.embed_tokens(ids).tobytes() == one.embed_tokens(ids, lone=True).tobytes()
        )


def test_the_graph_without_its_weights_gives_the_pinned_models_vectors_bit_for_bit() -> None:
    """The bot runs ``GRAPH_PATH`` on float32 weights it makes from the pinned model's int8
    ones (``tools/model_graph.py``); the pinned model's own graph multiplies them out alike."""
    ours, pinned = Embedder(), Embedder(graph=model_path().read_bytes())
    tokens = [ours.tokens(text) for text in MIXED_LENGTHS]
    for ids in [*([ids] for ids in tokens), tokens]:
        assert ours.embed_tokens(ids).tobytes() == pinned.embed_tokens(ids).tobytes()


def test_a_missing_or_broken_weights_recipe_is_a_model_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(embedding, "WEIGHTS_RECIPE_PATH", tmp_path / "absent.json")
    with pytest.raises(ModelError, match="graph is unusable"):
        Embedder()
    broken = tmp_path / "broken.json"
    broken.write_text('[{"name": "val_49"}]', encoding="utf-8")
    monkeypatch.setattr(embedding, "WEIGHTS_RECIPE_PATH", broken)
    with pytest.raises(ModelError, match="graph is unusable"):
        Embedder()


def test_a_rewritten_graph_runs_in_place_of_the_pinned_one_under_its_fingerprint() -> None:
    """``bench/model_numerics.py`` runs rewrites of the model against the stored vectors of
    the pinned one: the rewrite is what runs, and the fingerprint stays the pinned model's."""
    with pytest.raises(ModelError, match="cannot run its graph"):
        Embedder(graph=b"not a graph")
    pinned = Embedder()
    again = Embedder(graph=model_path().read_bytes())
    assert again.fingerprint == pinned.fingerprint == MODEL_SHA256
    assert again.embed(MIXED_LENGTHS[0]).tobytes() == pinned.embed(MIXED_LENGTHS[0]).tobytes()


def test_concurrent_real_queries_each_get_their_own_texts_vector(embedder: Embedder) -> None:
    vectors = QueryVectors(embedder, capacity=64)
    texts = [*MIXED_LENGTHS, *(text.upper() for text in MIXED_LENGTHS)]
    got: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(texts))

    def ask(number: int) -> None:
        start.wait()
        got[number] = vectors.vector(texts[number])

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for number, text in enumerate(texts):
        np.testing.assert_allclose(got[number], embedder.embed(text), rtol=0, atol=BATCH_TOLERANCE)


# --- who runs, and with what -----------------------------------------------------------------


def test_a_lone_query_runs_at_once_on_its_own_thread() -> None:
    model = _HeldModel()
    vector = QueryVectors(model, capacity=8).vector("graph sparsification")
    assert model.runs == [(["graph sparsification"], threading.current_thread())]
    np.testing.assert_array_equal(vector, _vector_for(model.tokens("graph sparsification")))


def test_a_query_runs_as_a_lone_one_only_when_none_waits_and_the_bot_is_quiet() -> None:
    model = _HeldModel()
    vectors = QueryVectors(model, capacity=8)
    vectors.vector("before anyone says")  # until ``run_alone_when``, never
    quiet = True
    vectors.run_alone_when(lambda: quiet)
    model.release.clear()
    first = threading.Thread(target=vectors.vector, args=("first",))
    first.start()
    assert model.running.wait(WAIT_SECONDS)
    short, long = "two words", " ".join(["word"] * (PADDING_TOKENS + 4))
    waiting = [threading.Thread(target=vectors.vector, args=(text,)) for text in (short, long)]
    for thread in waiting:
        thread.start()
    _wait_until(lambda: len(vectors._queue) == 2)
    model.release.set()
    for thread in [first, *waiting]:
        thread.join()
    vectors.vector("graph sparsification")
    quiet = False
    vectors.vector("graph neural networks")
    # Too far apart in length to share a run: the first of them runs while the other waits.
    assert [len(batch) for batch, _ in model.runs] == [1, 1, 1, 1, 1, 1]
    assert model.lone == [False, True, False, True, True, False]


def test_queries_that_arrive_during_a_run_share_the_next_one_and_each_gets_its_own() -> None:
    model = _HeldModel()
    vectors = QueryVectors(model, capacity=8)
    model.release.clear()
    got: dict[str, np.ndarray] = {}

    def ask(text: str) -> None:
        got[text] = vectors.vector(text)

    first = threading.Thread(target=ask, args=("first query",))
    first.start()
    assert model.running.wait(WAIT_SECONDS)
    later = ["second query", "third one", "a fourth"]
    threads = [threading.Thread(target=ask, args=(text,)) for text in later]
    for thread in threads:
        thread.start()
    _wait_until(lambda: len(vectors._queue) == len(later))
    model.release.set()
    for thread in [first, *threads]:
        thread.join()
    assert [sorted(batch) for batch, _ in model.runs] == [["first query"], sorted(later)]
    assert model.runs[1][1] in threads  # run by one of the threads that waited
    for text, vector in got.items():
        np.testing.assert_array_equal(vector, _vector_for(model.tokens(text)))


def test_threads_asking_for_the_same_text_meanwhile_share_its_run() -> None:
    model = _HeldModel()
    vectors = QueryVectors(model, capacity=8)
    model.release.clear()
    first = threading.Thread(target=vectors.vector, args=("busy",))
    first.start()
    assert model.running.wait(WAIT_SECONDS)
    same = [threading.Thread(target=vectors.vector, args=("same text",)) for _ in range(3)]
    for thread in same:
        thread.start()
    _wait_until(lambda: len(vectors._queue) == 1 and len(vectors._unfinished) == 2)
    model.release.set()
    for thread in [first, *same]:
        thread.join()
    assert [batch for batch, _ in model.runs] == [["busy"], ["same text"]]


def test_a_failed_run_fails_every_query_in_it_and_the_next_query_runs_again() -> None:
    class Failing(_HeldModel):
        def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray:
            raise RuntimeError("the model cannot run")

    vectors = QueryVectors(Failing(), capacity=8)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="cannot run"):
            vectors.vector("graph sparsification")


def test_a_failed_run_fails_only_its_own_queries_and_the_thread_that_ran_it_goes_on() -> None:
    """The thread that finds the model idle runs the oldest queries, which need not hold its
    own: a failure there is the other queries' to raise, and its own query still gets run."""

    class FailingOnLong(_HeldModel):
        def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray:
            vectors = super().embed_tokens(batch, lone=lone)
            if any(len(ids) > PADDING_TOKENS for ids in batch):
                raise RuntimeError("the model failed on the long one")
            return vectors

    model = FailingOnLong()
    model.release.clear()
    vectors = QueryVectors(model, capacity=8)
    long_text = " ".join(f"w{number}" for number in range(3 * PADDING_TOKENS))
    errors: list[BaseException] = []

    def ask(text: str) -> None:
        try:
            vectors.vector(text)
        except RuntimeError as error:
            errors.append(error)

    first = threading.Thread(target=ask, args=("busy",))
    first.start()
    assert model.running.wait(WAIT_SECONDS)
    waiting_long = threading.Thread(target=ask, args=(long_text,))
    waiting_long.start()
    _wait_until(lambda: len(vectors._queue) == 1)
    short = threading.Thread(target=ask, args=("short query",))
    short.start()
    _wait_until(lambda: len(vectors._queue) == 2)
    model.release.set()
    for thread in (first, waiting_long, short):
        thread.join(WAIT_SECONDS)
    assert len(errors) == 1 and "long one" in str(errors[0])
    assert vectors._queue == [] and vectors._unfinished == {}
    assert vectors.vector("short query") is not None


def test_a_run_takes_the_oldest_query_and_those_near_its_length() -> None:
    near, far = 4 + PADDING_TOKENS, 5 + PADDING_TOKENS
    assert batch_from([4, far, 6, near, 5], limit=8) == [0, 2, 3, 4]
    assert batch_from([4, 5, 6, 7], limit=2) == [0, 1]
    assert batch_from([far, 4, 6], limit=8) == [0, 2]


# --- the cache -------------------------------------------------------------------------------


def test_texts_differing_only_in_case_and_whitespace_share_a_vector(embedder: Embedder) -> None:
    vectors = QueryVectors(embedder, capacity=8)
    first = vectors.vector("Graph  Sparsification experts")
    assert vectors.vector("  graph sparsification\tEXPERTS ") is first
    other = vectors.vector("graph sparsification expert")
    assert other is not first and not np.array_equal(other, first)
    assert not first.flags.writeable


def test_the_cache_keeps_the_most_recently_used_texts() -> None:
    model = _HeldModel()
    vectors = QueryVectors(model, capacity=2)
    for text in ("one", "two", "one", "three", "one", "two"):
        vectors.vector(text)
    assert [batch for batch, _ in model.runs] == [["one"], ["two"], ["three"], ["two"]]
