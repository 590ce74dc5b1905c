"""For you: a linear classifier learned, on every call, from one person's reading list.

A search answers a question; a reading list is an answer to a question nobody typed. As
arxiv-sanity does for each tag, the papers a person saved are the positives of a linear model
over the paper text vectors, the papers they dismissed and a sample of the rest its
negatives, and its score orders every other paper. Nothing is kept between calls: the model
costs milliseconds to fit (``bench/results/recommend.md``), so a reading list that changes,
or is forgotten, needs no model to invalidate or delete.

The model is L2-regularised logistic regression fitted by Newton's method, a few lines of
numpy, not scikit-learn's: on the catalogue both fit the same objective to the same rankings
(the bench's hit rates agree to the reader) in the same few milliseconds, and the bot's peak
memory stays where it was either way (about 360 MB of its 450), but scikit-learn with SciPy,
joblib, threadpoolctl and narwhals adds about 200 MB installed (45 MB of wheels) for nothing
the bot would use. The weights make a dismissal count as much as a save and the sample of the
rest as much as all saves together, so a reading list of three is not drowned by hundreds of
negatives and one "not relevant" pushes its neighbours down.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bot.search.embedding import DIMENSIONS

NEGATIVE_SAMPLE = 400
"""Papers of the rest sampled as negatives: what the reader did not pick, as a background."""
REGULARISATION = 0.3
"""The inverse L2 penalty (scikit-learn's ``C``): with a handful of saves in 384 dimensions the
classes always separate, and the penalty keeps the weights finite and near the direction from
the rest to the saves. Chosen among 0.1, 0.3, 1 and 3 on readers drawn with another seed
than the bench reports (``bench/results/recommend.md``)."""
MAX_SUGGESTIONS = 50
"""Suggestions offered in all: past the fiftieth, the order says little about one person."""
NOT_LIKE = -1
"""``Ranked.like`` of a paper that no liked paper pulls up (``rank_by_taste``)."""
_NEWTON_STEPS = 25
_CONVERGED = 1e-4  # weights this close rank the papers alike


@dataclass(frozen=True)
class Ranked:
    """The suggested papers (indices into the vector table) best first, their scores, and
    for each the saved paper it is most like."""

    docs: np.ndarray
    scores: np.ndarray
    like: np.ndarray


def vector_table(
    vector_of: Callable[[int], np.ndarray | None], count: int
) -> tuple[np.ndarray, np.ndarray]:
    """The text vectors of papers ``0..count-1`` as one matrix (zeros where a paper has none
    yet), and which papers have one: taken afresh on each call, as a running bot fills in
    vectors in the background."""
    table = np.zeros((count, DIMENSIONS), dtype=np.float32)
    ready = np.zeros(count, dtype=bool)
    for doc in range(count):
        vector = vector_of(doc)
        if vector is not None:
            table[doc], ready[doc] = vector, True
    return table, ready


def rank_for_reader(
    vectors: np.ndarray,
    ready: np.ndarray,
    saved: Sequence[int],
    dismissed: Sequence[int],
    seed_key: str,
) -> Ranked:
    """Every paper with a vector (``ready``), saved and dismissed ones left out, ordered by a
    model fitted to ``saved`` (positives, each with a vector) against ``dismissed`` and a
    sample of the rest drawn with a seed made of ``seed_key``; ties go by index."""
    saved_docs = np.asarray(saved, dtype=np.intp)
    dismissed_docs = np.asarray(dismissed, dtype=np.intp)
    candidates = ready.copy()
    candidates[saved_docs] = False
    candidates[dismissed_docs] = False
    pool = np.flatnonzero(candidates)
    rng = np.random.default_rng(reader_seed(seed_key))
    sample = np.sort(rng.choice(pool, size=min(NEGATIVE_SAMPLE, len(pool)), replace=False))
    dismissed_docs = dismissed_docs[ready[dismissed_docs]]
    weights = class_weights(len(saved_docs), len(dismissed_docs), len(sample))
    features = vectors[np.concatenate([saved_docs, dismissed_docs, sample])].astype(np.float64)
    labels = np.zeros(len(features))
    labels[: len(saved_docs)] = 1.0
    weight, bias = fit_logistic(features, labels, weights)
    scores = vectors[pool] @ weight + bias
    order = np.lexsort((pool, -scores))
    docs, scores = pool[order], scores[order]
    return Ranked(docs, scores, most_like(vectors, docs, saved_docs))


def rank_by_taste(
    vectors: np.ndarray, candidates: np.ndarray, liked: np.ndarray, weights: np.ndarray
) -> Ranked:
    """``candidates`` (rows of ``vectors``) ordered by how much they are like the ``liked``
    rows, each weighing by its weight (a share or a save positive, a 👎 or a dismissal
    negative): the weighted sum of cosines, ties by row. Each candidate's ``like`` is the
    liked row that pulls it up most (a liked paper among the candidates is ranked by the
    others).

    For a handful of new papers and the few a channel or a person engaged with, this needs
    no model to fit (``rank_for_reader`` needs ``MIN_SAVES``): one engaged paper already
    says which of today's papers come first."""
    pull = (vectors[candidates] @ vectors[liked].T) * weights
    pull[candidates[:, None] == liked[None, :]] = 0.0  # a paper is no evidence for itself
    scores = pull.sum(axis=1)
    order = np.lexsort((candidates, -scores))
    if not len(candidates):
        return Ranked(candidates, scores, np.zeros(0, dtype=np.intp))
    strongest = np.argmax(pull, axis=1)
    like = np.where(pull[np.arange(len(candidates)), strongest] > 0, liked[strongest], NOT_LIKE)
    return Ranked(candidates[order], scores[order], like[order])


def most_like(vectors: np.ndarray, docs: np.ndarray, saved: np.ndarray) -> np.ndarray:
    """For each of ``docs``, the saved paper with the highest cosine (the vectors are unit
    length); ties go to the one saved first."""
    if not len(docs):
        return np.zeros(0, dtype=np.intp)
    return saved[np.argmax(vectors[docs] @ vectors[saved].T, axis=1)]


def fit_logistic(
    features: np.ndarray, labels: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression (the bias unpenalised), by Newton's method: a few
    steps reach what gradient steps approach in hundreds. Each step is solved by conjugate
    gradients, which only multiply by the rows, instead of forming the 385 x 385 Hessian: the
    same weights, twenty times faster."""
    design = np.hstack([features, np.ones((len(features), 1))])
    penalty = np.full(design.shape[1], 1.0 / REGULARISATION)
    penalty[-1] = 0.0
    theta = np.zeros(design.shape[1])
    for _ in range(_NEWTON_STEPS):
        chance = 1.0 / (1.0 + np.exp(-(design @ theta)))
        gradient = design.T @ (weights * (chance - labels)) + penalty * theta
        curvature = weights * chance * (1.0 - chance)
        hessian = functools.partial(_hessian_times, design, curvature, penalty)
        step = _conjugate_gradients(hessian, gradient)
        theta -= step
        if np.abs(step).max() < _CONVERGED:
            break
    return theta[:-1].astype(np.float32), float(theta[-1])


def _hessian_times(
    design: np.ndarray, curvature: np.ndarray, penalty: np.ndarray, vector: np.ndarray
) -> np.ndarray:
    """The Hessian of the penalised log-loss times ``vector``, from the rows."""
    return design.T @ (curvature * (design @ vector)) + penalty * vector


def _conjugate_gradients(
    times: Callable[[np.ndarray], np.ndarray], target: np.ndarray
) -> np.ndarray:
    """``x`` with ``times(x) == target`` for a symmetric positive definite ``times``, to a
    relative residual of 1e-6."""
    solution = np.zeros_like(target)
    residual = target.copy()
    direction = residual.copy()
    size = residual @ residual
    enough = 1e-12 * size
    for _ in range(len(target)):
        if size <= enough:
            break
        moved = times(direction)
        length = size / (direction @ moved)
        solution += length * direction
        residual -= length * moved
        size, previous = residual @ residual, size
        direction = residual + (size / previous) * direction
    return solution


def class_weights(saves: int, dismissals: int, sampled: int) -> np.ndarray:
    """A weight per training row (saved, dismissed, sampled, in that order): a dismissal
    weighs as much as a save, the whole sample as much as all saves together, and the
    weights sum to the number of rows, as scikit-learn's balanced weights do."""
    raw = np.concatenate(
        [np.full(saves, 1.0), np.full(dismissals, 1.0), np.full(sampled, saves / max(sampled, 1))]
    )
    return raw * (len(raw) / raw.sum())


def reader_seed(key: str) -> int:
    """A seed that is the same for the same reading list on every run and machine
    (``hash()`` is salted per process)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
