"""``python -m bot digest [--channel C] [--dry-run]``: the paper of the day from a shell or cron.

It posts under the same database claim as the scheduler, so running it next to a bot (or
twice from cron) never makes a second post: a channel that already has today's paper is
reported and the command still succeeds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.arguments import ArgumentParser, program
from bot.digest.posting import DigestOutcome
from bot.digest.service import ClientFor, DigestService
from bot.feeds.following import followed_once
from bot.papers.corpus import CorpusError
from bot.render.terminal import render
from bot.search.library import Library
from bot.search.semantic import share_host_files
from bot.search.snapshot import index_of
from bot.settings import Settings
from bot.store import DAILY, Store

OK_STATUSES = frozenset(
    {"posted", "recovered", "already_posted", "busy", "not_due", "dry_run", "nothing_new"}
)
"""Outcomes that are not a failure: "busy" means another process is posting it right now,
"nothing_new" that no new paper came for the channel's new papers post (a weekend)."""


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=f"{program()} digest",
        description=(
            "Post today's paper of the day now. Without --channel, serve every subscription "
            "(paper of the day, weekly digest or new papers) whose time has come; a channel "
            "that already has its post is left alone."
        ),
    )
    parser.add_argument(
        "--channel",
        metavar="C",
        help="post in this channel id now, even before its scheduled time",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the message instead of posting it (nothing is recorded)",
    )
    return parser


def _report(outcome: DigestOutcome) -> None:
    day = f" {outcome.local_date.isoformat()}" if outcome.local_date else ""
    kind = "" if outcome.kind == DAILY else f" {outcome.kind}"
    line = f"{outcome.channel}{day}{kind}: {outcome.detail}"
    if outcome.ts:
        line += f" (ts {outcome.ts})"
    print(line)
    if outcome.message is not None:
        print(render(outcome.message.blocks, outcome.message.text).text)
        print()


def _workspace(client: WebClient | None) -> str | None:
    """The workspace the bot token serves (``auth.test``), so the rows this run writes name
    it; unknown when Slack does not say, and then the post itself will say why."""
    if client is None:
        return None
    try:
        return client.auth_test().get("team_id")
    except (SlackApiError, OSError) as error:
        print(f"paperbot digest: Slack did not name the workspace: {error}", file=sys.stderr)
        return None


def main(
    argv: Sequence[str],
    settings: Settings,
    client: WebClient | None,
    clients: Callable[[Store], ClientFor] | None = None,
) -> int:
    """Run the command; ``client`` posts (the entry point makes it when a token is set), or,
    for a distributed app, ``clients`` gives each workspace's from the store's
    installations."""
    args = _parser().parse_args(list(argv))
    if not args.dry_run and client is None and clients is None:
        print(
            "paperbot digest: SLACK_BOT_TOKEN (or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET) is "
            "not set (or use --dry-run)",
            file=sys.stderr,
        )
        return 2
    share_host_files(settings.index_dir)
    try:
        index, _ = index_of(
            settings.corpus_for(slack=True), settings.index_dir, semantic=settings.semantic
        )
    except CorpusError as error:
        print(f"paperbot digest: {error}", file=sys.stderr)
        return 2
    store = Store(settings.database_url, workspace=None if args.dry_run else _workspace(client))
    try:
        service = DigestService(
            store,
            followed_once(Library(index), store, bool(settings.feeds)),
            client,
            settings,
            clients=clients(store) if clients is not None else None,
        )
        if args.channel:
            outcomes = [service.serve(args.channel, force=True, dry_run=args.dry_run)]
        elif args.dry_run:
            outcomes = [
                service.serve(sub.channel, kind=sub.kind, dry_run=True)
                for sub in service.active_subscriptions()
            ]
        else:
            outcomes = service.serve_due()
    finally:
        store.close()
    if not outcomes:
        print("no subscribed channel is due now")
    for outcome in outcomes:
        _report(outcome)
    return 0 if all(outcome.status in OK_STATUSES for outcome in outcomes) else 1
