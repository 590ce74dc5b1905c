"""``bench/models.py``'s rule for a model in MiniLM's place (issue 34): it wins only if it gains
on questions and thread posts of the blind sets and no kind of any set loses more than one
query's worth."""

from __future__ import annotations

from types import ModuleType

import pytest
from project import bench_script


@pytest.fixture(scope="module")
def models() -> ModuleType:
    return bench_script("models")


def _rows(models: ModuleType, title_loss: float) -> list:
    today, new = models.TODAY, "candidate"

    def row(kind: str, n: int, before: float, after: float) -> object:
        return models.Row("blind set", True, kind, n, {today: before, new: after}, None)

    return [
        row("question", 10, 0.5, 0.6),
        row("thread", 10, 0.5, 0.6),
        row("thread (@paperbot in the thread)", 10, 0.5, 0.6),
        row("title", 4, 1.0, 1.0 - title_loss),
    ]


def test_a_model_that_gains_and_loses_at_most_one_query_of_a_kind_wins(models: ModuleType) -> None:
    assert models.verdict(_rows(models, title_loss=0.25), "candidate") == []


def test_losing_more_than_one_query_of_a_kind_or_gaining_nothing_loses(models: ModuleType) -> None:
    (reason,) = models.verdict(_rows(models, title_loss=0.5), "candidate")
    assert reason == "blind set title: 0.500 against 1.000, more than 1/4 lower"
    rows = _rows(models, title_loss=0.0)
    rows[0] = models.Row(
        "blind set", True, "question", 10, {models.TODAY: 0.5, "candidate": 0.5}, None
    )
    (reason,) = models.verdict(rows, "candidate")
    assert reason == "every blind question pooled: 0.500, no gain on 0.500"
