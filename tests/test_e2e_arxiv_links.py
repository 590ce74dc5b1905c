"""arXiv links of papers the feeds stored, over HTTP through the real app and the fake Slack:
every form people paste (abstract or PDF, with or without a version, ``.pdf``, an old-style
id, ``export.`` and ``www.``) unfurls as an OpenReview link does, the OpenReview link of a
paper also on arXiv too; ``/paper LINK`` shows the paper; an arXiv link of a paper the bot
does not have is left alone, and ``/paper`` says it has no paper with that arXiv id."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from slack_harness import LiveBot, all_text
from test_e2e_following import _follow_once
from test_ingested_store import preprint, submission

from bot.papers.corpus import load_corpus
from bot.render.blocks import validate
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL

TITLE = "Quantum Annealing Schedules for Sparse Tensor Factorisation"
OLD_TITLE = "Fast Multipole Methods on Irregular Meshes"
BOTH_TITLE = "Sparse Attention for Long Documents"
ANNOUNCED = date(2026, 12, 2)
UNKNOWN = "https://arxiv.org/abs/2401.00001v3"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("seeds")


@pytest.fixture
def bot(tmp_path, corpus):
    live = LiveBot(corpus, tmp_path)
    live.services.store.store_entries(
        [
            preprint(
                "2501.01234",
                version=2,
                title=TITLE,
                authors=("Maria Goeppert", "Enrico Fermi", "Lise Meitner"),
                announced=ANNOUNCED,
                published=datetime(2026, 11, 28, 18, tzinfo=UTC),
                revised=datetime(2026, 12, 1, 18, tzinfo=UTC),
            ),
            preprint("cs/0112017", title=OLD_TITLE, authors=("Leslie Greengard",)),
            preprint("2501.05555", title=BOTH_TITLE),
        ]
    )
    live.services.store.store_entries([submission("AbCdEf123", title=BOTH_TITLE)])
    _follow_once(live, "arxiv:cs.LG,openreview:ICLR.cc/2026/Conference")
    yield live
    live.close()


FORMS = [
    "https://arxiv.org/abs/2501.01234",
    "https://arxiv.org/abs/2501.01234v2",
    "https://arxiv.org/pdf/2501.01234v1",
    "https://arxiv.org/pdf/2501.01234.pdf",
    "http://export.arxiv.org/abs/2501.01234v2",
    "https://www.arxiv.org/pdf/2501.01234v2.pdf",
]


def _unfurled(bot: LiveBot, links: list[str]) -> dict[str, dict]:
    reply, _ = bot.link(links)
    assert reply.status == 200
    bot.drain()
    calls = bot.recorder.calls_to("chat.unfurl")
    return {link: card for call in calls for link, card in call.args["unfurls"].items()}


def test_every_form_of_an_arxiv_link_unfurls_the_stored_paper(bot: LiveBot) -> None:
    old = "https://arxiv.org/abs/cs/0112017"
    unfurls = _unfurled(bot, [*FORMS, old, UNKNOWN])
    assert set(unfurls) == {*FORMS, old}
    for link in FORMS:
        card = unfurls[link]["blocks"]
        validate(Message("preview", tuple(card)))
        text = all_text(card)
        assert f"<https://arxiv.org/abs/2501.01234|{TITLE}>" in text
        assert "arXiv 2501.01234v2 · announced 2 Dec 2026 · Authors: Maria Goeppert" in text
        assert "<https://arxiv.org/pdf/2501.01234v2|PDF>" in text
    assert OLD_TITLE in all_text(unfurls[old]["blocks"])
    assert "<https://arxiv.org/pdf/cs/0112017v1|PDF>" in all_text(unfurls[old]["blocks"])


def test_a_paper_on_both_sources_unfurls_from_either_link(bot: LiveBot) -> None:
    links = ["https://arxiv.org/abs/2501.05555v1", "https://openreview.net/forum?id=AbCdEf123"]
    unfurls = _unfurled(bot, links)
    assert set(unfurls) == set(links)
    for link in links:
        text = all_text(unfurls[link]["blocks"])
        assert BOTH_TITLE in text
        assert "ICLR 2026 · Poster · arXiv 2501.05555v1" in text
        assert "|Read on arXiv> · <https://arxiv.org/pdf/2501.05555v1|PDF>" in text
        assert "|Read on OpenReview> · <https://openreview.net/pdf?id=AbCdEf123|PDF>" in text


def test_an_arxiv_link_of_a_paper_the_bot_lacks_is_left_alone(bot: LiveBot) -> None:
    reply, _ = bot.link([UNKNOWN, "https://arxiv.org/list/cs.LG/new"])
    assert reply.status == 200
    bot.drain()
    sent = {"chat.unfurl", "chat.postMessage", "chat.postEphemeral", RESPONSE_URL}
    assert not [call for call in bot.recorder.calls if call.method in sent]


def _answer(bot: LiveBot, typed: str) -> str:
    bot.slash(typed)
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    validate(Message(reply.text, tuple(reply.blocks)))
    return all_text(reply.blocks)


@pytest.mark.parametrize(
    "typed",
    [
        "<https://arxiv.org/pdf/2501.01234v1>",
        "https://export.arxiv.org/abs/2501.01234",
        "has anyone read https://arxiv.org/abs/2501.01234v2?",
        "arXiv:2501.01234",
    ],
)
def test_paper_with_an_arxiv_link_shows_the_paper(bot: LiveBot, typed: str) -> None:
    text = _answer(bot, typed)
    assert text.startswith(f"*<https://arxiv.org/abs/2501.01234|{TITLE}>*")
    assert "Papers for" not in text


def test_paper_with_an_unknown_arxiv_link_names_its_id(bot: LiveBot) -> None:
    assert _answer(bot, f"<{UNKNOWN}>") == (
        "I have no paper with the arXiv id \u201c2401.00001\u201d.\n"
        "Search for the paper's title with `/paper WORDS`."
    )
