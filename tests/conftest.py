"""Fixtures shared by every test file."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from faulty_slack import FaultySlackRecorder
from hypothesis import settings
from slack_harness import LiveBot

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.render import blocks
from bot.render.message import Message
from bot.search.engine import SearchIndex
from bot.slack.delivery import retry

# Property tests draw the same examples on every run (the suite is deterministic): a red CI
# run is red on a laptop too, and no run finds a new case the one before passed.
settings.register_profile("paperbot", derandomize=True, database=None)
settings.load_profile("paperbot")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per reason for skipping, with the count: without PostgreSQL, every test of
    its ~60 would otherwise get a line of its own saying the same thing."""
    reasons = Counter(
        str(report.longrepr[2]).removeprefix("Skipped: ")
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple)
    )
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"{count} skipped: {reason}")


@pytest.fixture(scope="session", autouse=True)
def saved_indexes_stay_in_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Bots and commands the tests start save their indexes in this run's temporary
    directory (``PAPERBOT_INDEX_DIR``), not in the user's cache: a test never opens an index
    an earlier run or another checkout saved, and leaves nothing behind."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PAPERBOT_INDEX_DIR", str(tmp_path_factory.mktemp("saved-indexes")))
        yield


@pytest.fixture(scope="session", autouse=True)
def every_message_round_trips() -> Iterator[Callable[..., Message]]:
    """Every message a test makes in this process also passes ``blocks.validate``, the full
    round trip through slack_sdk that the bot itself leaves to the builders at run time
    (``unchecked_message`` is the bot's own ``blocks.message``)."""
    assemble = blocks.message

    def checked(text: str, parts: Iterable[dict[str, Any]]) -> Message:
        built = assemble(text, parts)
        blocks.validate(built)
        return built

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blocks, "message", checked)
        yield assemble


@pytest.fixture
def unchecked_message(every_message_round_trips: Callable[..., Message]) -> Callable[..., Message]:
    """``blocks.message`` as the bot runs it, without the tests' round trip."""
    return every_message_round_trips


@pytest.fixture(scope="session")
def seed_corpus() -> LoadedCorpus:
    """The default corpus (the 76 seed papers joined with the catalogue), loaded once."""
    return load_corpus("seeds")


@pytest.fixture(scope="session")
def index(seed_corpus: LoadedCorpus) -> SearchIndex:
    """The search index over the seed corpus, built once."""
    return SearchIndex.build(seed_corpus.papers)


@pytest.fixture(scope="module")
def recorder() -> Iterator[FaultySlackRecorder]:
    """One fake Slack Web API per module (stopping one takes half a second); tests that need
    a clean history use the ``channel`` fixture."""
    with FaultySlackRecorder() as running:
        yield running


@pytest.fixture
def channel(request: pytest.FixtureRequest, recorder: FaultySlackRecorder) -> str:
    """A channel id of this test's own, the same on every run (the rotation is seeded by
    channel, so a per-process ``hash()`` would make paper orders differ between runs)."""
    recorder.clear()
    digest = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:10].upper()
    return f"C{digest}"


@pytest.fixture
def bot(seed_corpus, tmp_path) -> Iterator[LiveBot]:
    """The real app served over loopback HTTP against a fresh recorder and database."""
    live = LiveBot(seed_corpus, tmp_path)
    yield live
    live.close()


@pytest.fixture
def retry_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits between attempts of a Web API call, recorded instead of slept: a
    ``Retry-After: 60`` costs a test nothing."""
    recorded: list[float] = []
    monkeypatch.setattr(retry, "sleep", recorded.append)
    return recorded
