"""``bench/models.py``'s rule for a model in MiniLM's place (issue 34): it wins only if it gains
on questions and thread posts of the blind sets and no kind of any set loses more than one
query's worth."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest
from project import PROJECT_ROOT

MODELS_SCRIPT = PROJECT_ROOT / "bench" / "models.py"


@pytest.fixture(scope="module")
def models() -> ModuleType:
    """The benchmark script, loaded from its path because ``bench/`` is not a package."""
    if str(MODELS_SCRIPT.parent) not in sys.path:
        sys.path.insert(0, str(MODELS_SCRIPT.parent))  # for the bench modules it imports
    spec = importlib.util.spec_from_file_location("bench_models", MODELS_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module


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
