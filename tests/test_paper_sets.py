"""Sets of papers as arrays (``bot.search.paper_sets``): ``holding_enough`` gives the papers a
sum of weights per paper gives, by combinations of words and past ``COMBINED_WORDS`` by sums,
and the bitmaps find what the posting lists hold."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.search.paper_sets import (
    COMBINED_WORDS,
    Bitmap,
    Probe,
    bits_of,
    count_of,
    distinct,
    flags_of,
    holding_enough,
    words_of,
)


def summed(holder_lists: list[np.ndarray], weights: list[float], least: float, size: int):
    """The reference: each paper's weights added one by one, in the lists' order."""
    held = [0.0] * size
    for docs, weight in zip(holder_lists, weights, strict=True):
        for doc in docs.tolist():
            held[doc] += weight
    return np.array([total >= least for total in held])


def random_lists(seed: int, size: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.permutation(np.flatnonzero(rng.random(size) < rng.random())) for _ in range(count)]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 200),
    st.integers(1, COMBINED_WORDS + 12),
    st.floats(0.1, 1.0),
)
def test_holding_enough_is_the_per_paper_sum(seed: int, size: int, count: int, share: float):
    holder_lists = random_lists(seed, size, count)
    rng = np.random.default_rng(seed + 1)
    weights = [math.log(1 + float(w)) for w in rng.uniform(0.01, 20, count)]
    least = share * sum(weights) * (1 - 1e-9)
    bitmaps = [Bitmap.of([docs], size) for docs in holder_lists]
    assert np.array_equal(
        flags_of(holding_enough(bitmaps, weights, least, size), size),
        summed(holder_lists, weights, least, size),
    )


def test_a_question_of_many_words_adds_up_only_the_papers_of_its_rare_words() -> None:
    """20 words as a question has them: a few rare and heavy, most common and light. Only the
    papers holding a heavy word can reach the bar, and they are the ones added up, to the
    same flags as every paper's sum."""
    rng = np.random.default_rng(5)
    size = 20_000
    shares = [0.002, 0.004, 0.01, 0.02] + [0.3] * 8 + [0.6] * 8
    holder_lists = [np.flatnonzero(rng.random(size) < share) for share in shares]
    weights = [math.log(1 + (size - len(d) + 0.5) / (len(d) + 0.5)) for d in holder_lists]
    bitmaps = [Bitmap.of([docs], size) for docs in holder_lists]
    for share in (0.3, 0.4, 0.5):
        least = share * sum(weights) * (1 - 1e-9)
        flags = flags_of(holding_enough(bitmaps, weights, least, size), size)
        assert np.array_equal(flags, summed(holder_lists, weights, least, size))
        assert 0 < np.count_nonzero(flags) < size // 10


def test_a_sum_equal_to_the_bar_reaches_it_in_either_path() -> None:
    # 0.1 + 0.2 is not 0.3 in floats: the table adds in the lists' order, as a paper would.
    for count in (2, COMBINED_WORDS + 1):
        holder_lists = [np.array([0, 1]), np.array([0])] + [np.array([], dtype=np.int64)] * (
            count - 2
        )
        weights = [0.1, 0.2] + [0.0] * (count - 2)
        bitmaps = [Bitmap.of([docs], 3) for docs in holder_lists]
        flags = flags_of(holding_enough(bitmaps, weights, 0.1 + 0.2, 3), 3)
        assert flags.tolist() == [True, False, False]


def test_bitmaps_find_the_probed_papers_and_their_places_in_the_list() -> None:
    size = 1000
    docs = np.flatnonzero(np.random.default_rng(7).random(size) < 0.3)
    bitmap = Bitmap(docs, size)
    probed = np.array([0, 5, 63, 64, 130, 999, int(docs[10]), int(docs[-1])])
    held, positions = bitmap.find(Probe(probed))
    assert np.array_equal(probed[held], probed[np.isin(probed, docs)])
    assert np.array_equal(docs[positions], probed[held])
    assert np.array_equal(bits_of(bitmap.words, probed), np.isin(probed, docs).astype(np.uint64))


def test_a_bitmap_of_flags_holds_the_flagged_papers_and_counts_them() -> None:
    for size in (1, 63, 64, 65, 200):
        flags = np.random.default_rng(size).random(size) < 0.4
        words = words_of(flags)
        assert np.array_equal(words, Bitmap.of([np.flatnonzero(flags)], size))
        assert count_of(words) == np.count_nonzero(flags)


def test_flags_of_a_bitmap_are_its_papers() -> None:
    docs = np.array([0, 3, 64, 129])
    assert np.array_equal(np.flatnonzero(flags_of(Bitmap.of([docs], 130), 130)), docs)


def test_distinct_counts_each_paper_once() -> None:
    lists = random_lists(3, 500, 4)
    assert distinct(lists, 500) == len(np.unique(np.concatenate(lists)))
    assert distinct(lists[:1], 500) == len(lists[0])
