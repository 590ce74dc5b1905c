"""Building the bot once at start-up, and running it in a served mode.

Everything (the listeners, the answers, the renderer) is the same object in all three modes,
built once: loading the corpus and building the index is the slow part, so it is never per
request. The served bot binds its port and connects first and builds its index in the
background (``run``): until the library has an index, ``/readyz`` says so and every request
hears the busy notice. ``bot.cli`` chooses the mode (``bot.slack.modes``) and calls ``run``;
the shell builds the same app with ``build_services`` and ``build_app``.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import timedelta

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.oauth.token_rotation import TokenRotator

from bot.answers import Answers
from bot.clock import Clock, system_clock
from bot.digest.owner import new_owner, owner_gone
from bot.digest.schedule import DigestScheduler
from bot.digest.service import ClientFor, DigestService
from bot.feeds.following import Follower, follow
from bot.feeds.ingest import Ingester
from bot.feeds.service import FeedService
from bot.papers.corpus import (
    CATALOGUE_ACCEPTED_PAPERS,
    SEED_SPECS,
    LoadedCorpus,
)
from bot.render import papers as render
from bot.search.engine import SearchIndex
from bot.search.library import CurrentIndex, Library
from bot.search.query_vectors import Quiet
from bot.search.semantic import ranker_for, share_host_files, shared_embedder
from bot.search.snapshot import index_of
from bot.settings import Settings
from bot.slack.app import bolt_app, start_serving
from bot.slack.client import digest_client, make_web_client
from bot.slack.drain import Drain, ignore_stop_signals, stop_on_sigterm, wait_for_stop
from bot.slack.modes import MODE_NAMES, check_slack
from bot.slack.oauth import STATE_SECONDS, TOKEN_ROTATION_MINUTES, Distribution
from bot.slack.work import admission_for, listener_pool
from bot.slack.workspaces import WorkspaceClients
from bot.store import Store
from handlers import register_all

log = logging.getLogger(__name__)


@dataclass
class Services:
    """What the listeners and the scheduler need, built once and shared by every request;
    the index they read is the library's current one (``bot.search.library``)."""

    library: Library
    store: Store
    digest: DigestService
    answers: Answers
    settings: Settings
    slack: bool
    distribution: Distribution | None = None
    """Where installations are kept, for a distributed app (``Settings.distributed``)."""
    feeds: FeedService | None = None
    """The followed arXiv categories and OpenReview venues (None: ``PAPERBOT_FEEDS`` is
    empty, and no request is ever made to them)."""
    corpus: LoadedCorpus | None = None
    """The corpus loaded at start-up, once ``load`` has run."""
    follower: Follower | None = None
    """What puts the papers the feeds stored in the library, once ``follow`` has run."""
    clock: Clock = system_clock
    """What day it is to the searches' ``since:7d``, as to the rest of the bot."""

    @property
    def index(self) -> CurrentIndex:
        """The index as each request reads it."""
        return self.library.view()

    def load(self, corpus: LoadedCorpus | None = None) -> LoadedCorpus:
        """Load the corpus (unless given) and build its index, or open the index saved in
        ``PAPERBOT_INDEX_DIR`` (``bot.search.snapshot``), and put it in the library."""
        spec = self.settings.corpus_for(slack=self.slack)
        semantic = self.settings.semantic
        if corpus is None:
            index, corpus = index_of(
                spec, self.settings.index_dir, semantic=semantic, clock=self.clock
            )
        else:
            ranker = ranker_for(spec) if semantic else None
            index = SearchIndex.build(corpus.papers, ranker, clock=self.clock)
        self.library.swap(index)
        wider = None
        if spec.strip() in SEED_SPECS:
            wider = render.wider_corpus_hint(len(corpus.papers), CATALOGUE_ACCEPTED_PAPERS)
        # The help card says what is searched in a reader's words; the corpus's own
        # description (with its paths) is for the operator's log.
        self.answers.describe(f"Searching {corpus.label}.", wider)
        self.corpus = corpus
        return corpus

    def follow(self) -> None:
        """Once the index is loaded: make the papers the feeds store searchable here, now
        and within ``PAPERBOT_WATCH_SECONDS`` of each one stored (``bot.feeds.following``);
        nothing when no feed is followed."""
        self.follower = follow(
            self.library, self.store, bool(self.settings.feeds), self.settings.watch_seconds
        )

    def close(self) -> None:
        if self.follower is not None:
            self.follower.close()
        self.store.close()


def build_services(
    settings: Settings,
    client: WebClient | None,
    *,
    clock: Clock = system_clock,
    corpus: LoadedCorpus | None = None,
    workspace: str | None = None,
    slack: bool = False,
    deferred: bool = False,
) -> Services:
    """Load the corpus (unless given), build the index, open the store; ``slack`` says the
    services answer Slack rather than the shell, whose default corpora differ
    (``Settings.corpus_for``). ``deferred`` leaves the corpus and its index to
    ``Services.load``, which the served bot calls once it listens.

    ``client`` is what the daily paper is posted with (``slack.client.digest_client``);
    ``workspace`` is the one the bot token serves, as ``auth.test`` said (``check_slack``).
    A distributed app (``Settings.distributed``) posts with each workspace's own token
    instead, from the installations in the store.
    """
    share_host_files(settings.index_dir)
    library = Library()
    index = library.view()
    store = Store(settings.database_url, clock, workspace=workspace)
    distribution = distribution_for(settings, store) if settings.distributed else None
    clients = workspace_clients(settings, store, distribution) if distribution else None
    digest = DigestService(store, index, client, settings, clock=clock, clients=clients)
    feeds = feed_service(settings, store, clock) if settings.feeds else None
    answers = Answers(index, store, digest, clock=clock, feeds=feeds)
    services = Services(
        library, store, digest, answers, settings, slack, distribution, feeds, clock=clock
    )
    if not deferred:
        try:
            services.load(corpus)
        except BaseException:
            services.close()
            raise
    return services


def feed_service(settings: Settings, store: Store, clock: Clock = system_clock) -> FeedService:
    """The feeds' runs for this process, which claim each source's period in ``store``
    against every other process, and embed with the process's one model."""
    ingester = Ingester(
        store, settings, shared_embedder, owner=new_owner(), owner_gone=owner_gone, clock=clock
    )
    return FeedService(store, settings, ingester, clock=clock)


def distribution_for(settings: Settings, store: Store) -> Distribution:
    """The installations and OAuth states of a distributed app, in its database."""
    return Distribution(
        store.installation_store(str(settings.slack_client_id)),
        store.oauth_state_store(STATE_SECONDS),
    )


def workspace_clients(settings: Settings, store: Store, distribution: Distribution) -> ClientFor:
    """Each workspace's client for the digest, its token refreshed before it expires."""
    installations = distribution.installation_store
    refresher = make_web_client(None, settings.slack_api_url)
    return WorkspaceClients(
        lambda workspace: store.workspace_bot(installations, workspace),
        installations,
        TokenRotator(
            client_id=str(settings.slack_client_id),
            client_secret=str(settings.slack_client_secret),
            client=refresher,
        ),
        settings.slack_api_url,
        rotation_minutes=TOKEN_ROTATION_MINUTES,
    )


def distributed_clients(settings: Settings) -> Callable[[Store], ClientFor]:
    """For ``paperbot digest`` in a distributed app: each workspace's client, from the
    installations in the store it opens."""
    return lambda store: workspace_clients(settings, store, distribution_for(settings, store))


def build_app(
    settings: Settings,
    answers: Answers,
    client: WebClient,
    *,
    listener_executor: Executor | None = None,
    distribution: Distribution | None = None,
) -> App:
    """The Bolt app with every listener registered; ``client`` carries the bot token (none
    for a distributed app, whose installations ``distribution`` keeps).

    Listener work runs on ``listener_executor``, the served modes' pool by default, which
    turns a request away in its ack when its answer could not come in time.
    """
    executor = listener_executor or listener_pool()
    app = bolt_app(settings, client, executor, distribution)
    register_all(app, answers, admission_for(executor))
    return app


def freeze_heap() -> None:
    """Take what exists now out of the garbage collector's sight, for good.

    The corpus, the index and the model's tables are objects that live as long as the
    process, and every full collection walked them all with every thread stopped: about
    150 ms, once in each 8 s of searches at 50 a second. Frozen, they are never walked again;
    what requests make is collected as before. The collection first keeps start-up's garbage
    from being frozen with them; it is one such pause, while the bot is already serving. What
    requests have in hand at that moment is frozen too: a few objects, never freed if they
    form cycles.
    """
    gc.collect()
    gc.freeze()


def prepare_then_freeze(services: Services, quiet: Quiet) -> None:
    """The served bot's background start-up: the first requests would otherwise wait for
    what ``SearchIndex.prepare`` and the catalogue build, so both are built at once, in the
    background; then all of it is frozen (``freeze_heap``), even when preparing failed,
    since the parts already built live as long as the process anyway. On a corpus that has
    no stored vectors, ``prepare`` embeds them first, and the freeze waits for it."""
    catalogue = threading.Thread(
        target=services.answers.papers.prepare, name="prepare-catalogue", daemon=True
    )
    catalogue.start()
    try:
        services.library.index.prepare(quiet=quiet)
    finally:
        catalogue.join()
        freeze_heap()


def load_then_prepare(services: Services, quiet: Quiet) -> None:
    """The served bot's start-up once it listens: the corpus and its index, which requests
    are turned away until (``Services.load``), then ``prepare_then_freeze``, then the papers
    the feeds stored (``Services.follow``), added to an index already prepared."""
    try:
        corpus = services.load()
    except Exception:
        log.exception("could not load the corpus or build its index: every request is refused")
        raise
    print(f"paperbot: ready; {corpus.description}", flush=True)
    prepare_then_freeze(services, quiet)
    services.follow()


def run(settings: Settings, mode: str) -> int:
    """Serve Slack in ``mode`` (``SOCKET`` or ``HTTP``, as ``choose_mode`` gave it) until
    SIGTERM or SIGINT, then drain (``bot.slack.drain``); the process exit code.

    The signal is taken from the first moment: a platform may stop a process that is still
    starting, and that is an exit 0 with one line, not a kill."""
    stop_on_sigterm()
    services: Services | None = None
    scheduler: DigestScheduler | None = None
    stop_accepting: Callable[[], None] | None = None
    try:
        try:
            workspace = check_slack(settings, mode)
            client = make_web_client(settings.slack_bot_token, settings.slack_api_url)
            services = build_services(
                settings, digest_client(settings), workspace=workspace, slack=True, deferred=True
            )
            library = services.library
            print(f"paperbot: {MODE_NAMES[mode]}; building the index", flush=True)
            pool = listener_pool(ready=lambda: library.ready, scope=library.request)
            app = build_app(
                settings,
                services.answers,
                client,
                listener_executor=pool,
                distribution=services.distribution,
            )
            if settings.scheduler_enabled:
                scheduler = DigestScheduler(
                    services.digest, watch_interval=timedelta(seconds=settings.watch_seconds)
                )
                for job in services.feeds.jobs() if services.feeds else ():
                    scheduler.add_recurring(job.name, job.next_time, job.run)
                scheduler.start()
            drain = Drain(pool, settings.drain_seconds)
            stop_accepting = start_serving(
                app, settings, client, mode, drain, services.store, lambda: library.ready
            )
            threading.Thread(
                target=load_then_prepare,
                args=(services, pool.quiet),
                name="prepare",
                daemon=True,
            ).start()
            wait_for_stop()
        except KeyboardInterrupt:
            if stop_accepting is None:
                ignore_stop_signals()
                log.warning("stopped while starting: no request had been taken")
                return 0

        def stop() -> None:
            stop_accepting()
            if scheduler is not None:
                scheduler.stop()

        stranded = drain.run(stop) > 0
        if scheduler is not None and not scheduler.stop(drain.time_left()):
            log.warning(
                "stopping while the paper of the day is being posted: its claim lets the "
                "next attempt finish it"
            )
            stranded = True
    finally:
        if scheduler is not None:
            scheduler.stop()
        if services is not None:
            services.close()
    if stranded:
        _exit_without_waiting()
    return 0


def _exit_without_waiting() -> None:
    """Exit 0 now: the interpreter would join the pool's (and APScheduler's) threads at exit,
    holding the process past the grace period until the platform kills it (the drain has
    logged what is left)."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
