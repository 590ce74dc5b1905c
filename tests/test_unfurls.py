"""Link previews: a preview cached by an earlier version of the card is never shown, and the
papers a posted link names count as seen only once the preview is out."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.answers import Answers
from bot.answers.unfurls import LinkPreviews
from bot.papers.catalogue import PaperLookup
from bot.papers.corpus import LoadedCorpus
from bot.render import papers as render
from bot.search.engine import SearchIndex
from bot.slack import payloads
from bot.slack.payloads import Workspace
from bot.store import DatabaseUnavailable, Store
from handlers.events import unfurl_links

LINK = "https://openreview.net/forum?id=7ANDviElAo"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'paperbot.db'}")
    yield store
    store.close()


def _previews(store: Store, seed_corpus: LoadedCorpus) -> LinkPreviews:
    by_id = {paper.id: paper for paper in seed_corpus.papers}
    return LinkPreviews(PaperLookup(by_id.get, load_catalogue=dict), store, lambda _channel: True)


def test_a_preview_cached_under_an_older_render_version_is_drawn_again(
    store: Store, seed_corpus: LoadedCorpus
) -> None:
    stale = json.dumps({"blocks": [{"type": "divider"}]})
    store.cache_unfurl(LINK, render.RENDER_VERSION - 1, "7ANDviElAo", stale)
    [preview] = _previews(store, seed_corpus).unfurls([LINK]).values()
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    assert preview == {"blocks": list(render.unfurl_message(mog).blocks)}
    assert store.cached_unfurl(LINK, render.RENDER_VERSION) == json.dumps(preview)


def test_a_preview_cached_under_this_render_version_is_reused(
    store: Store, seed_corpus: LoadedCorpus
) -> None:
    kept = {"blocks": [{"type": "divider"}]}
    store.cache_unfurl(LINK, render.RENDER_VERSION, "7ANDviElAo", json.dumps(kept))
    assert _previews(store, seed_corpus).unfurls([LINK]) == {LINK: kept}


SUBSCRIBED = "C0SUBSCRIBED"


class Journal:
    """Slack's client and the store as the link listener uses them, writing down in order
    what reached each."""

    def __init__(self) -> None:
        self.steps: list[str] = []

    def chat_unfurl(self, **_arguments: Any) -> None:
        self.steps.append("preview")

    def record_shown(self, *_arguments: Any) -> None:
        self.steps.append("counted")
        raise DatabaseUnavailable("the database did not answer in time")


def test_a_link_counts_once_its_preview_is_out_and_a_failing_database_costs_only_that(
    store: Store, index: SearchIndex, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    """The preview never waits for the database's count of seen papers: ``chat.unfurl``
    goes first, and the count failing afterwards is logged, not raised."""
    journal = Journal()
    monkeypatch.setattr(store, "record_shown", journal.record_shown)
    subscribed = SimpleNamespace(channel=SUBSCRIBED)
    digest: Any = SimpleNamespace(active_subscriptions=lambda: [subscribed])
    workspace = Workspace()
    event = payloads.link_shared(workspace, [LINK], "1700000500.000100", channel_id=SUBSCRIBED)
    body = {"team_id": workspace.team_id, "event": event}
    caplog.set_level(logging.WARNING)
    answers = Answers(index, store, digest)
    unfurl_links(answers, event, body, journal, logging.getLogger("test"))  # type: ignore[arg-type]
    assert journal.steps == ["preview", "counted"]
    assert f"papers linked in {SUBSCRIBED} not counted as seen" in caplog.text
