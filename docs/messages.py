"""Every kind of message the bot sends, built by the bot's own code from the seed papers.

``docs/screenshots.py`` draws each one as Slack shows it, and a test rebuilds them all and
fails when the JSON committed beside a screenshot is stale. To show a new kind of message,
append a ``Shown`` to ``MESSAGES``: a file name, a caption for the gallery, where Slack
shows it, and a function from the ``Bot`` (the real answers, digest and corpus, with a fixed
clock and a throwaway database) to the ``Message`` a person would get. Order matters: a
message may build on state an earlier one left, as a person's session would.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

from bot.answers import Answers, Viewer
from bot.answers.typed import parse_command, parse_mention
from bot.buttons import PageCursor, PaperButton
from bot.digest.service import DigestService
from bot.feeds.following import Follower
from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.render import papers as render
from bot.render.message import Message
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.store import NEW_PAPERS
from bot.store.records import FeedEntry
from bot.wiring.root import Services, build_services

FIXED_NOW = datetime(2025, 4, 24, 8, 0, tzinfo=UTC)
"""Thursday of ICLR 2025 week, 08:00 UTC: before a 9 am Berlin paper of the day is due."""
CHANNEL = "C0RESEARCH"
CHANNEL_NAME = "research"
THREAD_TS = "1745481600.000100"
VIEWER = Viewer("T0TEAM", "U0ALICE")
BOT_USER = "U0PAPERBOT"
MOG = "7ANDviElAo"  # Graph Sparsification via Mixture of Graphs: seven authors, code, a TL;DR

Where = Literal["ephemeral", "channel", "thread", "unfurl", "home"]
LINK = f"https://openreview.net/forum?id={MOG}"
OTHER_PAPERS = ("qKgd7RaAem", "qFw2RFJS5g")
NO_ABSTRACT_LINK = "https://openreview.net/forum?id=Z4evOUYrk7"  # CameraCtrl: a title only
ARXIV_LINK = "https://arxiv.org/abs/2612.00417v2"
ICLR_2026_LINK = "https://openreview.net/forum?id=pX7rVb2QkM"
FEED_ENTRIES = (
    FeedEntry(
        source="arxiv",
        id="arxiv:2612.00417",
        title="Draft Trees from Retrieved Passages for Faster Long-Context Decoding",
        authors=("Mei Tanaka", "Rahul Iyer", "Sofia Lindqvist", "Daniel Okafor", "Wen Li"),
        abstract=(
            "Speculative decoding drafts tokens with a small model and verifies them with the "
            "large one, but over long contexts the draft model's guesses drift from the "
            "sources the answer quotes. We draft from the retrieved passages themselves: a "
            "tree of candidate continuations, copied from the spans the query attends to, is "
            "verified in one forward pass. On four long-context QA benchmarks decoding is 2.7x "
            "faster with outputs identical to greedy decoding. Code: "
            "https://github.com/mtanaka/draft-trees"
        ),
        version=2,
        arxiv_id="2612.00417",
        categories=("cs.CL", "cs.LG"),
        announced=date(2026, 12, 2),
        published=datetime(2026, 11, 27, 16, 4, tzinfo=UTC),
        revised=datetime(2026, 12, 1, 17, 30, tzinfo=UTC),
        page_url="https://arxiv.org/abs/2612.00417",
        pdf_url="https://arxiv.org/pdf/2612.00417v2",
        feed="arxiv:cs.CL",
    ),
    FeedEntry(
        source="openreview",
        id="pX7rVb2QkM",
        title="Sharpness-Aware Pruning of Mixture-of-Experts Routers",
        authors=("Hannah Becker", "Tomás Ortega", "Priya Raman"),
        abstract=(
            "Mixture-of-experts models route each token to a few experts, yet most routers "
            "keep experts that almost never win. We prune experts by the sharpness of the "
            "router's loss around them rather than by how often they are chosen, and retrain "
            "the router alone. Pruning half the experts of a 16-expert model costs 0.3 points "
            "of accuracy across eight language tasks and halves the memory of inference."
        ),
        venue="ICLR 2026 Poster",
        venue_id="ICLR.cc/2026/Conference",
        decision="accepted",
        published=datetime(2025, 9, 19, 9, tzinfo=UTC),
        revised=datetime(2026, 1, 26, 14, tzinfo=UTC),
        page_url=ICLR_2026_LINK,
        pdf_url="https://openreview.net/pdf?id=pX7rVb2QkM",
        feed="openreview:ICLR.cc/2026/Conference",
    ),
)
"""Papers the feeds brought: an arXiv preprint and an ICLR 2026 paper from OpenReview."""


@dataclass
class Bot:
    """The real bot's parts, built once for all the messages."""

    corpus: LoadedCorpus
    services: Services

    @property
    def answers(self) -> Answers:
        return self.services.answers

    @property
    def digest(self) -> DigestService:
        return self.services.digest


@dataclass(frozen=True)
class Shown:
    name: str
    caption: str
    where: Where
    build: Callable[[Bot], Message]


def _first_page_cursor(bot: Bot) -> str:
    """The cursor of the first page of the "graph sparsification" results (for **Back**)."""
    message = bot.answers.search("graph sparsification", VIEWER)
    [value] = [
        element["value"]
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == render.ACTION_ABSTRACT and element["value"].startswith(MOG)
    ]
    return value


def _mention(bot: Bot, text: str, thread_ts: str = THREAD_TS) -> Message:
    request = parse_mention(f"<@{BOT_USER}> {text}", BOT_USER)
    return bot.answers.mention(request, CHANNEL, thread_ts, in_thread=False, viewer=VIEWER)


def _end_of_thread_results(bot: Bot) -> Message:
    _mention(bot, "sparsification", "1745481600.000200")
    return _mention(bot, "more", "1745481600.000200")


def _subscribe(bot: Bot) -> Message:
    return bot.digest.subscribe(CHANNEL, "9am Europe/Berlin weekdays graph neural networks")


def _paper_of_the_day(bot: Bot) -> Message:
    outcome = bot.digest.serve(CHANNEL, force=True, dry_run=True)
    assert outcome.message is not None, outcome.detail
    return outcome.message


def _unfurl(bot: Bot) -> Message:
    """A person's message with the link, and the preview the bot attaches to it."""
    return Message(LINK, tuple(bot.answers.unfurls([LINK])[LINK]["blocks"]))


def _with_feed_papers(bot: Bot) -> None:
    """The feeds' papers stored and made searchable, as a bot that follows them does; last,
    so every message before them shows the seed papers alone."""
    bot.services.store.store_entries(FEED_ENTRIES)
    papers, _ = bot.services.store.papers_since(0)
    bot.services.library.add(papers)


def _arxiv_unfurl(bot: Bot) -> Message:
    _with_feed_papers(bot)
    return Message(ARXIV_LINK, tuple(bot.answers.unfurls([ARXIV_LINK])[ARXIV_LINK]["blocks"]))


def _iclr_2026_paper(bot: Bot) -> Message:
    _with_feed_papers(bot)
    return bot.answers.command(parse_command(ICLR_2026_LINK), CHANNEL, VIEWER)


def _weekly_preview(bot: Bot) -> Message:
    bot.digest.subscribe(CHANNEL, "weekly monday 9am Europe/Berlin", VIEWER.team_id)
    return bot.digest.today(CHANNEL, "weekly")


def _saved_list(bot: Bot) -> Message:
    for paper_id in OTHER_PAPERS:
        bot.answers.set_saved(PaperButton(paper_id), VIEWER, saved=True)
    return bot.answers.saved_list(VIEWER)


def _app_home(bot: Bot) -> Message:
    view = bot.answers.home(VIEWER, lambda _channel: True)
    return Message("paperbot's Home tab", tuple(view["blocks"]))


_ANNOUNCED = (
    (
        "2504.17001",
        "Sparse Message Passing for Billion-Edge Graphs",
        ("Ada Lovelace", "Alan Turing"),
        "Graph neural networks spend most of their time on edges that carry little signal. We "
        "learn which edges to keep per layer and train graph neural networks on billion-edge "
        "graphs on one GPU, matching full message passing.",
    ),
    (
        "2504.17002",
        "Graph Transformers Without Positional Encodings",
        ("Grace Hopper", "Emmy Noether", "Claude Shannon"),
        "Positional encodings make graph transformers expensive. We show that a learned graph "
        "rewiring recovers their accuracy on molecular and citation graphs at a fraction of "
        "the cost.",
    ),
    (
        "2504.17003",
        "Rewiring Graphs to Fight Oversquashing",
        ("Marie Curie", "Srinivasa Ramanujan"),
        "Oversquashing limits how far information travels in graph neural networks. We add "
        "edges guided by the graph's curvature and improve long-range graph benchmarks.",
    ),
    (
        "2504.17004",
        "Diffusion Models for Protein Backbones",
        ("Rosalind Franklin", "Dorothy Hodgkin"),
        "We generate protein backbones with a diffusion model over rigid frames.",
    ),
)
"""Papers a feed announced on the day the docs are dated, for the new papers post."""


def _new_papers_post(bot: Bot) -> Message:
    """A channel following new papers on graphs: the post its morning would bring."""
    day = FIXED_NOW.date()
    bot.services.store.store_entries(
        FeedEntry(
            source="arxiv",
            id=f"arxiv:{number}",
            title=title,
            authors=authors,
            abstract=abstract,
            version=1,
            arxiv_id=number,
            categories=("cs.LG",),
            announced=day,
            published=FIXED_NOW,
            revised=FIXED_NOW,
            page_url=f"https://arxiv.org/abs/{number}",
            pdf_url=f"https://arxiv.org/pdf/{number}v1",
            feed="arxiv:cs.LG",
        )
        for number, title, authors, abstract in _ANNOUNCED
    )
    Follower(bot.services.library, bot.services.store, 3600).tick()
    bot.digest.subscribe(CHANNEL, "new 9am Europe/Berlin graph neural networks", VIEWER.team_id)
    return _required(bot.digest.serve(CHANNEL, kind=NEW_PAPERS, dry_run=True).message)


MESSAGES: list[Shown] = [
    Shown(
        "search_results",
        "`/paper graph sparsification`: the top 5, only for you",
        "ephemeral",
        lambda bot: bot.answers.search("graph sparsification", VIEWER),
    ),
    Shown(
        "search_corrected",
        "A typo is corrected, and the reply says so",
        "ephemeral",
        lambda bot: bot.answers.search("graph sparsifcation", VIEWER),
    ),
    Shown(
        "search_unmatched_word",
        "A word no paper contains is named",
        "ephemeral",
        lambda bot: bot.answers.search("kitchen models", VIEWER),
    ),
    Shown(
        "search_author",
        "`author:` takes the words that continue an author's name, and says which it used",
        "ephemeral",
        lambda bot: bot.answers.search("author:Stefanie Jegelka graphs", VIEWER),
    ),
    Shown(
        "search_few",
        "A search that finds little names the whole conference",
        "ephemeral",
        lambda bot: bot.answers.search("sparsification", VIEWER),
    ),
    Shown(
        "search_nothing",
        "Nothing found: what to try",
        "ephemeral",
        lambda bot: bot.answers.search("quokka census", VIEWER),
    ),
    Shown(
        "abstract",
        "**Abstract** on a result: the whole abstract, every author, **Back to results**",
        "ephemeral",
        lambda bot: bot.answers.abstract(PaperButton.decode(_first_page_cursor(bot)), VIEWER),
    ),
    Shown(
        "paper_by_id",
        "`/paper 7ANDviElAo`: one paper, with every author",
        "ephemeral",
        lambda bot: bot.answers.command(parse_command(MOG), CHANNEL, VIEWER),
    ),
    Shown(
        "more_like_this",
        "**More like this**",
        "ephemeral",
        lambda bot: bot.answers.more_like_this(MOG, VIEWER),
    ),
    Shown(
        "shared",
        "**Share**: the paper in the channel, saying who shared it",
        "channel",
        lambda bot: _required(bot.answers.share(MOG, VIEWER.user_id)),
    ),
    Shown(
        "thread_reply",
        "`@paperbot graph sparsification`: three papers in a thread",
        "thread",
        lambda bot: _mention(bot, "graph sparsification"),
    ),
    Shown(
        "thread_end",
        "`@paperbot more` after the last page: that was all, and **More like this**",
        "thread",
        _end_of_thread_results,
    ),
    Shown(
        "thread_paper_link",
        "`@paperbot <OpenReview link>` in a thread: that paper's card, also for an accepted paper"
        " outside the corpus searched",
        "thread",
        lambda bot: _mention(bot, "<https://openreview.net/forum?id=odjMSBSWRt>"),
    ),
    Shown(
        "thread_paper_without_abstract",
        "A catalogue paper without an abstract: its card links to OpenReview for it",
        "thread",
        lambda bot: _mention(bot, f"<{NO_ABSTRACT_LINK}>", "1745481600.000400"),
    ),
    Shown(
        "subscribed",
        "`/paper subscribe 9am Europe/Berlin weekdays graph neural networks`",
        "ephemeral",
        _subscribe,
    ),
    Shown(
        "paper_of_the_day",
        "The paper of the day, posted in the channel",
        "channel",
        _paper_of_the_day,
    ),
    Shown(
        "today",
        "`/paper today`: today's paper, before it is posted",
        "ephemeral",
        lambda bot: bot.digest.today(CHANNEL),
    ),
    Shown(
        "weekly_preview",
        "`/paper subscribe weekly monday 9am Europe/Berlin`, then `/paper today weekly`: the"
        " next weekly team digest",
        "ephemeral",
        _weekly_preview,
    ),
    Shown(
        "subscriptions",
        "`/paper subscriptions`",
        "ephemeral",
        lambda bot: bot.digest.subscriptions(CHANNEL),
    ),
    Shown(
        "unfurl",
        "An OpenReview link pasted in a channel: the bot's preview under it",
        "unfurl",
        _unfurl,
    ),
    Shown(
        "shortcut_related",
        "**Find related papers** on a message: only for you, with **Post in thread**",
        "ephemeral",
        lambda bot: bot.answers.related_to_message(
            "Has anyone tried sparsifying GNN graphs with a mixture of experts?",
            VIEWER,
            post_to=(CHANNEL, THREAD_TS),
        ),
    ),
    Shown(
        "saved_notice",
        "**Save** on a card everyone sees: a private note with **Undo**",
        "ephemeral",
        lambda bot: bot.answers.set_saved(PaperButton(MOG), VIEWER, saved=True),
    ),
    Shown("saved_list", "`/paper saved`: your reading list", "ephemeral", _saved_list),
    Shown(
        "for_you",
        "`/paper for me`: papers like the ones you saved, each saying why",
        "ephemeral",
        lambda bot: bot.answers.command(parse_command("for me"), CHANNEL, VIEWER),
    ),
    Shown(
        "app_home",
        "The Home tab: the reading list, the daily-paper channels, how to use the bot",
        "home",
        _app_home,
    ),
    Shown(
        "unsubscribed",
        "`/paper unsubscribe`",
        "ephemeral",
        lambda bot: bot.digest.unsubscribe(CHANNEL),
    ),
    Shown(
        "forget_me",
        "`/paper forget me`: what was deleted",
        "ephemeral",
        lambda bot: bot.answers.command(parse_command("forget me"), CHANNEL, VIEWER),
    ),
    Shown("help", "`/paper` or `/paper help`", "ephemeral", lambda bot: bot.answers.help()),
    Shown(
        "error_like_usage",
        "`/paper like:` with nothing after it: the usage",
        "ephemeral",
        lambda bot: bot.answers.search("like:", VIEWER),
    ),
    Shown(
        "error_unknown_paper",
        "A paper id the bot does not know",
        "ephemeral",
        lambda bot: bot.answers.abstract(PaperButton("zzNoSuchId"), VIEWER),
    ),
    Shown(
        "error_expired",
        "A button on a list the bot has forgotten",
        "ephemeral",
        lambda bot: bot.answers.page(PageCursor.decode("q:5:0000000000000000"), VIEWER),
    ),
    Shown(
        "error_nothing_to_continue",
        "`@paperbot more` with no search to continue",
        "thread",
        lambda bot: _mention(bot, "more", "1745481600.000300"),
    ),
    Shown(
        "error_bad_schedule",
        "`/paper subscribe 25:99`: a time the bot cannot read",
        "ephemeral",
        lambda bot: bot.digest.subscribe(CHANNEL, "25:99"),
    ),
    Shown(
        "error_not_in_channel",
        "**Share** in a channel the bot is not in",
        "ephemeral",
        lambda bot: render.not_in_channel_message(CHANNEL),
    ),
    Shown(
        "error_busy",
        "Too many requests at once",
        "ephemeral",
        lambda bot: render.busy_message(),
    ),
    Shown(
        "error_apology",
        "Something failed on the bot's side",
        "ephemeral",
        lambda bot: render.apology_message(),
    ),
    Shown(
        "unfurl_arxiv",
        "An arXiv link of a paper the arXiv feed brought: its id and version, the day it was "
        "announced, its abstract page and PDF",
        "unfurl",
        _arxiv_unfurl,
    ),
    Shown(
        "paper_openreview_2026",
        "`/paper https://openreview.net/forum?id=…` of an ICLR 2026 paper the OpenReview feed "
        "brought: its venue and decision, when it was published and updated, its forum and PDF",
        "ephemeral",
        _iclr_2026_paper,
    ),
    # Last: it adds a feed's papers to the bot's index, which every later message would search.
    Shown(
        "new_papers",
        "`/paper subscribe new 9am Europe/Berlin graph neural networks`: the best of the day's"
        " new papers, posted in the channel",
        "channel",
        _new_papers_post,
    ),
]


def _required(message: Message | None) -> Message:
    assert message is not None
    return message


def build_bot(directory: Path) -> Bot:
    """The bot over the seed papers, its state in ``directory``; nothing reaches Slack."""
    settings = Settings(corpus="seeds", database_url=f"sqlite:///{directory / 'docs.db'}")
    client = make_web_client("xoxb-docs", "http://127.0.0.1:9/api/")
    corpus = load_corpus("seeds")
    services = build_services(settings, client, clock=lambda: FIXED_NOW, corpus=corpus)
    return Bot(corpus, services)


def build_all() -> dict[str, dict[str, Any]]:
    """Every message as JSON-ready data, by name, in ``MESSAGES`` order."""
    with tempfile.TemporaryDirectory() as directory:
        bot = build_bot(Path(directory))
        try:
            return {
                shown.name: {
                    "caption": shown.caption,
                    "where": shown.where,
                    "text": (message := shown.build(bot)).text,
                    "blocks": list(message.blocks),
                }
                for shown in MESSAGES
            }
        finally:
            bot.services.close()
