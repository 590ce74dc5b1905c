"""``paperbot ingest``: fetch new papers now, from the command line.

``paperbot ingest [FEED…] [--days N] [--via oai|api]`` loads the last N days of the followed
arXiv categories (a first load, a category just added, days the bot was down) and the
OpenReview venues' changes since their last run, with a progress bar and a summary line;
``paperbot ingest --scheduled`` runs what the bot's scheduler would run now, under the same
claims (for cron, or a replica without the scheduler). Pages are stored as they come, so an
interrupted run loses nothing and a repeated one stores nothing twice.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import timedelta

from tqdm import tqdm

from bot.arguments import ArgumentParser, program
from bot.clock import system_clock
from bot.feeds.ingest import Ingester, RunSummary, embed_entry
from bot.feeds.service import FeedService
from bot.render.sources import ingest_summary, reembed_summary
from bot.search.semantic import share_host_files, shared_embedder
from bot.settings import FollowedFeed, Settings, SettingsError, parse_feeds
from bot.store import Store
from bot.store.records import StoreCounts

DEFAULT_DAYS = 30


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=f"{program()} ingest",
        description="Fetch new papers from arXiv and OpenReview now, into the bot's database.",
    )
    parser.add_argument(
        "feeds",
        nargs="*",
        metavar="FEED",
        help="arxiv:cs.LG, arxiv:cs.CL+cross, openreview:ICLR.cc/2026/Conference "
        "(default: PAPERBOT_FEEDS)",
    )
    parser.add_argument(
        "--days",
        type=int,
        default=DEFAULT_DAYS,
        help=f"how many days of arXiv to load, up to today (default {DEFAULT_DAYS})",
    )
    parser.add_argument(
        "--via",
        choices=("oai", "api"),
        default="oai",
        help="arXiv's OAI-PMH (default: every change, replacements included) or its search "
        "API (papers submitted in the period, one category at a time)",
    )
    parser.add_argument(
        "--scheduled",
        action="store_true",
        help="run what the scheduler runs now (today's arXiv announcement, the venues' "
        "changes), under the same claims as every bot process",
    )
    return parser


def main(
    argv: Sequence[str], settings: Settings, *, owner: str, owner_gone: Callable[[str], bool]
) -> int:
    args = _parser().parse_args(argv)
    try:
        feeds = parse_feeds(" ".join(args.feeds)) if args.feeds else settings.feeds
    except SettingsError as error:
        print(f"paperbot ingest: {error}", file=sys.stderr)
        return 2
    if not feeds:
        print(
            "paperbot ingest: no feed to fetch: name one (arxiv:cs.LG) or set PAPERBOT_FEEDS",
            file=sys.stderr,
        )
        return 2
    if args.days < 1:
        print("paperbot ingest: --days must be 1 or more", file=sys.stderr)
        return 2
    share_host_files(settings.index_dir)
    store = Store(settings.database_url)
    bar = tqdm(desc="ingesting", unit=" papers", file=sys.stderr, disable=None)
    try:
        ingester = Ingester(
            store,
            settings,
            shared_embedder,
            owner=owner,
            owner_gone=owner_gone,
            on_page=bar.update,
        )
        started = time.monotonic()
        if args.scheduled:
            service = FeedService(store, _with_feeds(settings, feeds), ingester)
            runs = service.run_due()
        else:
            today = system_clock().date()
            runs = [
                ingester.backfill(feeds, today - timedelta(days=args.days), today, via=args.via)
            ]
    finally:
        bar.close()
        store.close()
    return _summarise(runs, ingester.requests, time.monotonic() - started)


def _with_feeds(settings: Settings, feeds: Sequence[FollowedFeed]) -> Settings:
    return replace(settings, feeds=tuple(feeds))


def _summarise(runs: list[RunSummary], requests: int, seconds: float) -> int:
    counts = sum((run.counts for run in runs), StoreCounts())
    errors = [f"{run.source}: {run.error}" for run in runs if run.error]
    line = ingest_summary(
        new=counts.new,
        updated=counts.updated,
        unchanged=counts.unchanged,
        skipped=sum(run.skipped for run in runs),
        requests=requests,
        error="; ".join(errors) or None,
    )
    print(f"{line} ({seconds:.0f} s)")
    return 1 if errors else 0


REEMBED_BATCH = 200


def reembed_stored(settings: Settings) -> int:
    """``paperbot embed``'s second part where feeds are followed: the stored feed papers
    whose vectors are of another model (or missing) are embedded again with this one, a
    batch at a time with a progress bar; vectors of two models are never mixed."""
    embedder = shared_embedder()
    store = Store(settings.database_url)
    try:
        total = store.count_entries_to_embed(embedder.fingerprint)
        done = 0
        with tqdm(total=total, desc="re-embedding", unit=" papers", file=sys.stderr) as bar:
            while batch := store.entries_to_embed(embedder.fingerprint, REEMBED_BATCH):
                store.store_vectors(
                    {(entry.source, entry.id): embed_entry(embedder, entry) for entry in batch}
                )
                done += len(batch)
                bar.update(len(batch))
    finally:
        store.close()
    print(reembed_summary(done, embedder.fingerprint))
    return 0
