"""How long the work behind link previews, Save, the reading list and the App Home takes.

Slack wants an ack within 3 seconds, which the listeners give at once; this measures the work
that follows it, on the seed corpus with a SQLite store in a temporary folder, so a slow part
shows up here rather than as a late preview or a stale Home tab. Run by hand from the
repository root: ``python bench/talk.py`` writes ``bench/results/talk.md``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.answers import Viewer  # noqa: E402
from bot.buttons import PaperButton  # noqa: E402
from bot.papers.corpus import catalogue_by_openreview_id, load_corpus  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.slack.client import make_web_client  # noqa: E402
from bot.wiring.root import build_services  # noqa: E402

VIEWER = Viewer("T0BENCH", "U0BENCH")
SAVED = 250
LINK = "https://openreview.net/forum?id={}"


class SteppingClock:
    """A clock a second later at each read, so saved papers have distinct times."""

    def __init__(self) -> None:
        self.now = datetime(2025, 4, 24, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def timed(work: Callable[[], object], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "talk.md")
    args = parser.parse_args(argv)

    rows: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{folder}/bench.db", semantic=False)
        client = make_web_client("xoxb-bench", "http://127.0.0.1:9/api/")
        services = build_services(
            settings, client, clock=SteppingClock(), corpus=load_corpus("seeds")
        )
        answers = services.answers
        rows.append(("catalogue read for link previews (once)", timed(answers.papers.prepare, 1)))
        ids = list(catalogue_by_openreview_id())[: args.repeats]
        links = iter([LINK.format(paper_id) for paper_id in ids])
        rows.append(
            (
                "preview of a link, first time (render + store)",
                timed(lambda: answers.unfurls([next(links)]), len(ids)),
            )
        )
        rows.append(
            (
                "preview of a link, cached",
                timed(lambda: answers.unfurls([LINK.format(ids[0])]), args.repeats),
            )
        )
        saves = iter(list(catalogue_by_openreview_id())[:SAVED])
        rows.append(
            (
                "Save (store write + the private notice)",
                timed(
                    lambda: answers.set_saved(PaperButton(next(saves)), VIEWER, saved=True), SAVED
                ),
            )
        )
        rows.append(
            (
                f"App Home view, {SAVED} saved, first page",
                timed(lambda: answers.home(VIEWER, lambda _channel: True), args.repeats),
            )
        )
        rows.append(
            ("`/paper saved`, a page of 5", timed(lambda: answers.saved_list(VIEWER), args.repeats))
        )
        rows.append((f"BibTeX of {SAVED} papers", timed(lambda: answers.export(VIEWER), 10)))
        services.close()

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    lines = [
        "# Reading list, previews and App Home: time after the ack",
        "",
        f"`python bench/talk.py` at {commit}: seed corpus, SQLite store, one process; "
        "milliseconds.",
        "",
        "| work | runs | median | max |",
        "| --- | --- | --- | --- |",
    ]
    for name, times in rows:
        lines.append(
            f"| {name} | {len(times)} | {statistics.median(times):.1f} | {max(times):.1f} |"
        )
    text = "\n".join(lines) + "\n"
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
