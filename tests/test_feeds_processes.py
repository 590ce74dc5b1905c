"""Bot processes on one PostgreSQL database and the loopback fakes of arXiv: of two
processes started at once only one calls the sources, and each paper is stored once;
the same day fetched again makes no request; a process killed in the middle of an ingest
is taken over by the next, which loses nothing and doubles nothing; a replacement updates
the paper; and requests to arXiv are never closer than 3 s on the fake's clock.

Each process is ``python -m bot ingest --scheduled``: the scheduler's own code path (the
runs due now, under the claims) without a Slack connection to set up.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from feed_fakes import Fault, FeedFake, paper, running
from project import PROJECT_ROOT
from sqlalchemy import create_engine, text
from test_store import throwaway_postgres_database

from bot.feeds.timing import arxiv_period
from bot.store.database import normalise_database_url

pytestmark = pytest.mark.postgres

PAPERS = 9
"""Harvested on the first load, three to an OAI page, then the day's RSS item."""


@pytest.fixture
def database_url() -> Iterator[str]:
    with throwaway_postgres_database() as url:
        yield url


@pytest.fixture
def fake() -> Iterator[FeedFake]:
    today = datetime.now(UTC).date()
    served = FeedFake(clock=lambda: datetime.now(UTC))
    served.papers = [
        paper(n, datestamp=today - timedelta(days=1 + n % 3)) for n in range(1, PAPERS + 1)
    ]
    served.announced = [paper(50)]
    served.oai_page_size = 3
    with running(served):
        yield served


def environment(fake: FeedFake, database_url: str) -> dict[str, str]:
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    return {
        **keep,
        **fake.environment,
        "PYTHONPATH": str(PROJECT_ROOT),
        "PAPERBOT_DATABASE_URL": database_url,
        "PAPERBOT_FEEDS": "arxiv:cs.LG",
        "PAPERBOT_LOG_LEVEL": "WARNING",
    }


def start(fake: FeedFake, database_url: str, cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "ingest", *(args or ("--scheduled",))],
        cwd=cwd,  # away from any developer .env in the checkout
        env=environment(fake, database_url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=180)
    assert process.returncode == 0, f"{out}\n{err}"
    return out.strip().splitlines()[-1]


def stored(database_url: str) -> list[tuple[str, int]]:
    engine = create_engine(normalise_database_url(database_url))
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT id, version FROM ingested_papers ORDER BY id")).all()
    engine.dispose()
    return [(row[0], row[1]) for row in rows]


def assert_paced(fake: FeedFake, since: int = 0) -> None:
    """arXiv's requests (from the ``since``-th on) at least 3 s apart on the fake's clock."""
    times = fake.lane_times("arxiv")[since:]
    assert all(b - a >= timedelta(seconds=3) for a, b in itertools.pairwise(times)), times


def wait_for(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the process never got there"
        time.sleep(0.05)


def test_two_processes_at_once_make_one_ingest_and_store_each_paper_once(
    fake: FeedFake, database_url: str, tmp_path: Path
) -> None:
    first, second = (start(fake, database_url, tmp_path) for _ in range(2))
    lines = sorted([finished(first), finished(second)])
    expected_requests = 3 + 1  # three OAI pages, then the RSS feed
    assert lines[0].startswith("0 papers new, 0 updated, 0 already stored") and (
        "; 0 requests" in lines[0]
    ), lines
    assert lines[1].startswith(f"{PAPERS + 1} papers new") and (
        f"; {expected_requests} requests" in lines[1]
    ), lines
    assert fake.count("arxiv") == expected_requests
    ids = [paper_id for paper_id, _ in stored(database_url)]
    assert len(ids) == len(set(ids)) == PAPERS + 1
    assert_paced(fake)

    again = finished(start(fake, database_url, tmp_path))  # the same day, fetched again
    assert "; 0 requests" in again and fake.count("arxiv") == expected_requests


def test_a_process_killed_mid_ingest_is_taken_over_without_loss_or_doubles(
    fake: FeedFake, database_url: str, tmp_path: Path
) -> None:
    killed = start(fake, database_url, tmp_path)
    wait_for(lambda: fake.count("arxiv") >= 1)
    fake.fail_next("oai", Fault(hang=120))  # its second page never comes
    wait_for(lambda: fake.count("arxiv") >= 2)
    wait_for(lambda: len(stored(database_url)) >= 3)
    killed.send_signal(signal.SIGKILL)
    killed.communicate(timeout=30)
    assert len(stored(database_url)) == 3  # the first page, stored as it came
    assert_paced(fake)
    before = fake.count("arxiv")
    line = finished(start(fake, database_url, tmp_path))
    assert line.startswith(f"{PAPERS + 1 - 3} papers new, 0 updated, 3 already stored"), line
    ids = [paper_id for paper_id, _ in stored(database_url)]
    assert len(ids) == len(set(ids)) == PAPERS + 1
    assert_paced(fake, since=before)


def test_a_replacement_updates_the_stored_paper(
    fake: FeedFake, database_url: str, tmp_path: Path
) -> None:
    finished(start(fake, database_url, tmp_path, "--days", "5"))
    today = datetime.now(UTC).date()
    fake.papers[0] = paper(1, version=2, datestamp=today, abstract="A second version.")
    line = finished(start(fake, database_url, tmp_path, "--days", "1"))
    assert line.startswith("0 papers new, 1 updated"), line
    assert ("arxiv:2501.00001", 2) in stored(database_url)
    assert arxiv_period(datetime.now(UTC))[1] <= today
