"""What a served bot does in the background once it has started: prepare, then freeze."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from types import SimpleNamespace

import pytest

from bot.search.query_vectors import always_quiet
from bot.wiring.root import freeze_heap, prepare_then_freeze


class _Cycle:
    """An object only the garbage collector can free (it refers to itself)."""

    def __init__(self) -> None:
        self.me = self


def test_freeze_heap_hides_what_lives_now_and_frees_start_up_garbage_first():
    gc.disable()  # no collection but the one under test
    try:
        survivor = _Cycle()
        garbage = weakref.ref(_Cycle())
        assert garbage() is not None
        assert any(thing is survivor for thing in gc.get_objects())
        freeze_heap()
        assert garbage() is None
        assert not any(thing is survivor for thing in gc.get_objects())
        assert survivor.me is survivor
    finally:
        gc.unfreeze()
        gc.enable()


def _services(index_prepare, catalogue_prepare) -> SimpleNamespace:
    return SimpleNamespace(
        library=SimpleNamespace(index=SimpleNamespace(prepare=index_prepare)),
        answers=SimpleNamespace(papers=SimpleNamespace(prepare=catalogue_prepare)),
    )


def test_both_are_prepared_side_by_side_and_frozen_once_both_are_done(monkeypatch):
    events: list[object] = []
    monkeypatch.setattr("bot.wiring.root.freeze_heap", lambda: events.append("freeze"))
    both_running = threading.Barrier(2, timeout=5)  # breaks unless the two run at once
    index_done = threading.Event()

    def index_prepare(quiet):
        both_running.wait()
        events.append(("index", quiet))
        index_done.set()

    def catalogue_prepare():
        both_running.wait()
        index_done.wait(timeout=5)
        time.sleep(0.05)  # still at work when the index is done: the freeze must wait
        events.append("catalogue")

    prepare_then_freeze(_services(index_prepare, catalogue_prepare), always_quiet)
    assert events == [("index", always_quiet), "catalogue", "freeze"]


def test_a_failed_preparation_still_freezes_what_was_built(monkeypatch):
    events: list[str] = []
    monkeypatch.setattr("bot.wiring.root.freeze_heap", lambda: events.append("freeze"))

    def index_prepare(quiet):
        raise RuntimeError("the model would not load")

    with pytest.raises(RuntimeError):
        prepare_then_freeze(_services(index_prepare, lambda: events.append("catalogue")), None)
    assert events == ["catalogue", "freeze"]
