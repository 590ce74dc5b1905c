"""The semantic ranker's vector table: papers found by the key of their text, whether the
table was built, opened from saved arrays (its keys an array nobody copies) or extended."""

from __future__ import annotations

import numpy as np

from bot.search.embedding import DIMENSIONS
from bot.search.semantic import _VectorTable


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_filling_a_key_fills_every_paper_whose_text_it_is() -> None:
    table = _VectorTable([7, 3, 7, 2**64 - 1, 3])
    table.fill(7, unit(1))
    table.fill(2**64 - 1, unit(2))
    assert table.ready.tolist() == [True, False, True, True, False]
    assert np.array_equal(table.vectors[0], unit(1).astype(np.float16))
    assert np.array_equal(table.vectors[2], table.vectors[0])
    assert table.missing_texts(lambda doc: f"paper {doc}") == {3: "paper 4"}


def test_a_key_nobody_has_fills_nothing() -> None:
    table = _VectorTable([5, 6])
    table.fill(4, unit(1))
    table.fill(9, unit(1))
    assert not table.ready.any()


def test_an_opened_table_keeps_the_saved_keys_array_and_finds_papers_by_them() -> None:
    built = _VectorTable([11, 12, 11])
    saved = {f"text.{name}": array.copy() for name, array in built.arrays().items()}
    opened = _VectorTable.of_arrays(saved, "text.")
    assert opened.arrays()["keys"] is saved["text.keys"]
    opened.fill(11, unit(3))
    assert opened.ready.tolist() == [True, False, True]


def test_extending_fills_new_papers_whose_text_is_ready_and_leaves_the_rest() -> None:
    table = _VectorTable([20, 21, 22])
    table.fill(21, unit(4))
    table.fill(22, unit(5))
    grown = table.extended([22, 30, 21, 20, 30])
    assert grown.ready.tolist() == [False, True, True, True, False, True, False, False]
    assert np.array_equal(grown.vectors[3], table.vectors[2])
    assert np.array_equal(grown.vectors[5], table.vectors[1])
    assert table.ready.tolist() == [False, True, True]  # the old table is left as it was
    grown.fill(30, unit(6))
    grown.fill(20, unit(7))
    assert grown.ready.all()
    assert np.array_equal(grown.vectors[4], grown.vectors[7])
    assert np.array_equal(grown.vectors[0], grown.vectors[6])


def test_extending_an_empty_table_or_by_nothing() -> None:
    assert _VectorTable([]).extended([1, 2]).ready.tolist() == [False, False]
    table = _VectorTable([1])
    table.fill(1, unit(8))
    assert table.extended([]).ready.tolist() == [True]
