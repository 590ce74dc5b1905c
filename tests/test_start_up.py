"""What a served bot does in the background once it has started: prepare, then freeze."""

from __future__ import annotations

import gc
import weakref
from types import SimpleNamespace

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


def test_what_is_prepared_is_frozen_with_the_rest(monkeypatch):
    events: list[object] = []
    monkeypatch.setattr("bot.wiring.root.freeze_heap", lambda: events.append("freeze"))
    services = SimpleNamespace(
        index=SimpleNamespace(prepare=lambda quiet: events.append(("index", quiet))),
        answers=SimpleNamespace(papers=SimpleNamespace(prepare=lambda: events.append("catalogue"))),
    )
    prepare_then_freeze(services, always_quiet)
    assert sorted(map(str, events[:2])) == sorted(map(str, [("index", always_quiet), "catalogue"]))
    assert events[2:] == ["freeze"]
