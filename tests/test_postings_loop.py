"""The C loops that add a term's postings and a field's sums into the scores
(``bot.search._postings``): numpy's operations bit for bit, and a clear refusal of arrays
they cannot read safely."""

from __future__ import annotations

import numpy as np
import pytest

from bot.search._postings import add_postings, move_postings


def _numpy_sum(scores, docs, codes, ratios, factor):
    expected = scores.copy()
    np.add.at(expected, docs.astype(np.intp), np.take(ratios, codes) * factor)
    return expected


@pytest.mark.parametrize("code_type", [np.uint16, np.uint32])
def test_postings_add_as_numpy_adds_them_bit_for_bit(code_type):
    rng = np.random.default_rng(7)
    ratios = rng.random(3000) * 2.5
    scores = rng.random(5000) * 40  # a later term: added onto earlier terms' scores
    docs = np.sort(rng.choice(5000, 2000, replace=False)).astype(np.int32)
    codes = rng.integers(0, len(ratios), len(docs)).astype(code_type)
    factor = float(rng.random() * 9)
    expected = _numpy_sum(scores, docs, codes, ratios, factor)
    add_postings(scores, docs, codes, ratios, factor)
    # One rounding after the product and one after the sum, never a fused multiply-add.
    assert scores.tobytes() == expected.tobytes()


def test_a_slice_of_the_index_arrays_is_read_where_it_starts():
    ratios = np.array([0.5, 1.5, 2.25])
    docs = np.array([9, 0, 3, 7, 1], dtype=np.int32)
    codes = np.array([2, 2, 1, 0, 1], dtype=np.uint16)
    scores = np.zeros(10)
    add_postings(scores, docs[1:4], codes[1:4], ratios, 2.0)
    assert scores.tolist() == [4.5, 0, 0, 3.0, 0, 0, 0, 1.0, 0, 0]


@pytest.mark.parametrize(
    ("docs", "codes"),
    [
        (np.array([0, 10], dtype=np.int32), np.array([0, 0], dtype=np.uint16)),
        (np.array([0, -1], dtype=np.int32), np.array([0, 0], dtype=np.uint16)),
        (np.array([0, 1], dtype=np.int32), np.array([0, 3], dtype=np.uint16)),
    ],
    ids=["document past the end", "negative document", "code past the ratios"],
)
def test_an_index_out_of_range_is_an_error_not_a_write_outside_the_array(docs, codes):
    scores = np.zeros(10)
    with pytest.raises(IndexError, match="posting 1"):
        add_postings(scores, docs, codes, np.ones(3), 1.0)


@pytest.mark.parametrize(
    ("scores", "docs", "codes", "ratios"),
    [
        (np.zeros(4, np.float32), np.zeros(1, np.int32), np.zeros(1, np.uint16), np.ones(2)),
        (np.zeros(4), np.zeros(1, np.int64), np.zeros(1, np.uint16), np.ones(2)),
        (np.zeros(4), np.zeros(1, np.int32), np.zeros(1, np.int16), np.ones(2)),
        (np.zeros(4), np.zeros(1, np.int32), np.zeros(1, np.uint16), np.ones(2, np.float32)),
        (np.zeros((2, 2)), np.zeros(1, np.int32), np.zeros(1, np.uint16), np.ones(2)),
    ],
    ids=["float32 scores", "int64 documents", "signed codes", "float32 ratios", "2-d scores"],
)
def test_arrays_of_another_type_or_shape_are_refused(scores, docs, codes, ratios):
    with pytest.raises(TypeError):
        add_postings(scores, docs, codes, ratios, 1.0)


def test_read_only_scores_and_strided_postings_are_refused():
    scores = np.zeros(4)
    scores.flags.writeable = False
    with pytest.raises(ValueError):
        add_postings(scores, np.zeros(1, np.int32), np.zeros(1, np.uint16), np.ones(2), 1.0)
    strided = np.zeros(4, np.int32)[::2]
    with pytest.raises(ValueError):
        add_postings(np.zeros(4), strided, np.zeros(2, np.uint16), np.ones(2), 1.0)


def test_one_code_per_document():
    with pytest.raises(ValueError, match="one code per document"):
        add_postings(np.zeros(4), np.zeros(2, np.int32), np.zeros(1, np.uint16), np.ones(2), 1.0)


def test_a_fields_sums_move_into_the_scores_as_its_vector_adds_and_leave_zeros():
    rng = np.random.default_rng(11)
    scores = rng.random(3000) * 30
    field = np.zeros(3000)
    docs = rng.choice(3000, 900, replace=False).astype(np.int32)
    field[docs] = rng.random(900) * 4
    expected = scores + field * 0.3  # 0.0 where the field has no posting: x + 0.0 is x
    listed_twice = np.concatenate([docs, docs[::3]])  # a document listed again adds 0.0
    move_postings(scores, field, listed_twice, 0.3)
    assert scores.tobytes() == expected.tobytes()
    assert not field.any()


def test_moving_a_document_out_of_range_is_an_error():
    with pytest.raises(IndexError, match="posting 0"):
        move_postings(np.zeros(4), np.zeros(4), np.array([4], dtype=np.int32), 1.0)
    with pytest.raises(TypeError):
        move_postings(np.zeros(4), np.zeros(4, np.float32), np.zeros(1, np.int32), 1.0)
