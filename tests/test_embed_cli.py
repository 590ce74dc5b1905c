"""``python -m bot embed``'s progress: a bar on a terminal, a few honest lines in a log."""

from __future__ import annotations

import io

from tqdm import tqdm

from bot.search.embed_cli import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_progress_is_a_bar() -> None:
    shown = progress([1, 2, 3], _Terminal())
    assert isinstance(shown, tqdm)
    assert list(shown) == [1, 2, 3]


def test_in_a_log_the_progress_is_a_line_every_tenth_of_the_way_after_the_work() -> None:
    log = io.StringIO()
    keys = list(range(25))
    shown = progress(keys, log)
    seen = []
    for key in shown:
        seen.append((key, log.getvalue().count("\n")))  # lines printed before this key's work
    lines = log.getvalue().splitlines()
    assert [key for key, _ in seen] == keys
    assert seen[2] == (2, 0) and seen[3] == (3, 1)  # "3 of 25" only once the third is done
    assert lines[0] == "paperbot embed: 3 of 25 papers embedded"
    assert lines[-1] == "paperbot embed: 25 of 25 papers embedded"
    assert len(lines) == 9  # every 3, and the end


def test_in_a_log_the_last_line_comes_even_when_zip_stops_the_keys() -> None:
    log = io.StringIO()
    keys = [7, 8]
    pairs = list(zip(range(len(keys)), progress(keys, log), strict=True))
    assert pairs == [(0, 7), (1, 8)]
    assert log.getvalue().splitlines()[-1] == "paperbot embed: 2 of 2 papers embedded"
