"""Link previews: a preview cached by an earlier version of the card is never shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.answers.unfurls import LinkPreviews
from bot.papers.catalogue import PaperLookup
from bot.papers.corpus import LoadedCorpus
from bot.render import papers as render
from bot.store import Store

LINK = "https://openreview.net/forum?id=7ANDviElAo"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'paperbot.db'}")
    yield store
    store.close()


def _previews(store: Store, seed_corpus: LoadedCorpus) -> LinkPreviews:
    by_id = {paper.id: paper for paper in seed_corpus.papers}
    return LinkPreviews(PaperLookup(by_id.get, load_catalogue=dict), store)


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
