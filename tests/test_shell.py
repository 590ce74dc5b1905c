"""The shell: typed lines become real Slack requests into the real app, and what the app
sent to "Slack" is printed readably, with numbered buttons."""

from __future__ import annotations

import builtins
import io
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from slack_harness import fixed_clock

from bot.settings import Settings
from bot.shell.fake_slack import SlackRecorder
from bot.shell.logs import logs_in_file
from bot.shell.repl import NO_ANSWER, SHELL_TOKEN, Shell, main
from bot.slack.client import make_web_client
from bot.store import Store
from bot.wiring.root import build_services

MOG_TITLE = "Graph Sparsification via Mixture of Graphs"


@pytest.fixture(autouse=True)
def log_folder(tmp_path, monkeypatch):
    """The interactive shell's log file, in the test's folder instead of the user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "paperbot"


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'shell.db'}", scheduler_enabled=False)


@pytest.fixture
def shell(seed_corpus, settings) -> Iterator[Shell]:
    with SlackRecorder() as recorder:
        client = make_web_client(SHELL_TOKEN, recorder.base_url)
        services = build_services(settings, client, clock=fixed_clock, corpus=seed_corpus)
        yield Shell(services, recorder, client)
        services.close()


def test_once_prints_one_exchange(settings):
    out = io.StringIO()
    assert main(["--once", "/paper graph sparsification"], settings, out=out) == 0
    text = out.getvalue()
    assert text.startswith("you> /paper graph sparsification\n")
    assert "only visible to you" in text
    assert f"1. {MOG_TITLE}" in text
    assert "(https://openreview.net/forum?id=7ANDviElAo)" in text
    assert "[1] Abstract   [2] Save   [3] Share   [4] More like this" in text
    assert "[21] Next 5" in text
    assert "<https://" not in text and "&amp;" not in text


def test_buttons_are_pressed_by_number(shell):
    shell.handle("/paper graph sparsification")
    abstract = shell.handle("1")
    assert "replaces the previous answer" in abstract
    assert "The source code is available at https://github.com/yanweiyue/MoG." in abstract
    assert "[1] Back to results   [2] Save   [3] Share   [4] More like this" in abstract
    back = shell.handle("1")
    assert "replaces the previous answer" in back
    assert f"1. {MOG_TITLE}" in back
    shared = shell.handle("3")
    assert "paperbot, in #research" in shared
    assert "Shared by @U0ASKER" in shared
    assert "There is no button 42" in shell.handle("42")


def test_mentions_answer_in_a_thread_and_more_continues_it(shell):
    first = shell.handle("@paperbot diffusion models")
    assert "paperbot, in the thread" in first
    assert "(top 3)" in first
    more = shell.handle("@paperbot more")
    assert "(4\u20136)" in more
    related = shell.handle("@paperbot")
    assert "related to this thread's first message" in related


def test_more_with_no_earlier_search_opens_no_thread(shell):
    assert "There is no earlier search here to continue" in shell.handle("@paperbot more")
    bare = shell.handle("@paperbot")
    assert "Mention me with some words" in bare
    assert "Papers related" not in bare


def test_typed_markup_is_shown_back_harmlessly(shell):
    assert "“<!channel> zzz9”" in shell.handle("/paper <!channel> zzz9")
    assert "“*bold* zzz9”" in shell.handle("/paper *bold* zzz9")


def test_emoji_show_as_characters_and_channels_by_name(shell):
    refused = shell.handle("/paper subscribe 25:00")
    assert "\u26a0\ufe0f `25:00` is not a time of day" in refused
    assert ":warning:" not in refused
    shell.handle("/paper subscribe 09:00")
    home = shell.handle("home")
    assert "#research · 09:00 UTC" in home
    assert "C0RESEARCH" not in home


def test_help_and_a_message_paperbot_does_not_answer_list_every_command(shell):
    help_text = shell.handle("help")
    no_answer = shell.handle("hello there")
    assert no_answer == NO_ANSWER
    commands = ["/paper WORDS", "@paperbot WORDS", "@paperbot more", "/paper saved", "NUMBER"]
    commands += ["save N", "more", "related TEXT", "home", "help", "quit"]
    listed = " ".join(no_answer.split())
    for command in commands:
        assert f"  {command} " in help_text
        assert f" {command}," in listed or f" {command}." in listed
    assert shell.handle("   ") == ""
    assert shell.handle("\u00b2") == NO_ANSWER


def test_help_lines_each_usage_up_with_its_explanation(shell):
    rows = [line for line in shell.handle("help").splitlines() if line.startswith("  ")]
    assert any(line.startswith("  /paper new [TOPIC]  ") for line in rows)
    assert any(line.startswith("  @paperbot new [TOPIC]  ") for line in rows)
    columns = {len(line) - len(line.strip().split("  ", 1)[1].lstrip()) for line in rows}
    assert len(columns) == 1  # every explanation starts at one column


def test_a_pasted_openreview_link_unfurls_as_in_a_channel(shell):
    shown = shell.handle("look at https://openreview.net/forum?id=7ANDviElAo, it is good")
    assert shown.startswith(
        f"--- paperbot's preview of https://openreview.net/forum?id=7ANDviElAo ---\n{MOG_TITLE}"
    )
    assert shown.endswith("[1] Abstract   [2] Save\n")
    [unfurl] = [call for call in shell.recorder.calls if call.method == "chat.unfurl"]
    assert list(unfurl.unfurls) == ["https://openreview.net/forum?id=7ANDviElAo"]
    assert "The source code is available" in shell.handle("1")
    elsewhere = shell.handle("see https://example.com/forum?id=7ANDviElAo")
    assert elsewhere.startswith(
        "paperbot shows no preview: it previews OpenReview and arXiv links only."
    )


def test_related_stands_for_the_message_shortcut(shell):
    shown = shell.handle("related sparsifying graphs with a mixture of experts")
    assert "--- paperbot, only visible to you ---\nPapers related to this message" in shown
    assert f"1. {MOG_TITLE}" in shown


def test_more_pages_on_the_last_answer_or_the_thread(shell):
    assert "There is no next page to show" in shell.handle("more")
    shell.handle("/paper graph")
    assert "Papers for “graph” (6\u201310 of 10)" in shell.handle("more")
    shell.handle("@paperbot diffusion models")
    assert "(4\u20136)" in shell.handle("more")


def test_piped_input_reads_like_a_transcript_and_ends_cleanly_on_eof(settings, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("/paper graph sparsification\n1\n"))
    out = io.StringIO()
    assert main([], settings, out=out) == 0
    text = out.getvalue()
    # The start-up notes are wrapped at the shell's width, as messages are.
    assert text.startswith(
        "paperbot shell: 76 papers from 4 seed files in seeds/ (76 matched the ICLR 2025\n"
        "catalogue). Type help.\n"
    )
    hint = (
        "Type help.\nOnly the 76 seed papers are searched here; all 3,706 accepted ICLR 2025 "
        "papers are one\nsetting away: `PAPERBOT_CORPUS=catalogue`.\nThe bot's log:"
    )
    assert hint in text
    assert "you> /paper graph sparsification\n--- paperbot, only visible to you ---" in text
    assert "you> 1\n--- paperbot, only visible to you (replaces the previous answer) ---" in text
    assert text.endswith("[1] Back to results   [2] Save   [3] Share   [4] More like this\n")


def test_typed_input_ends_cleanly_on_eof(settings, monkeypatch):
    lines = iter(["/paper help"])

    def fake_input(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(builtins, "input", fake_input)
    out = io.StringIO()
    assert main([], settings, out=out) == 0
    assert "/paper random" in out.getvalue()


def test_only_the_whole_words_paper_and_paperbot_are_commands(shell):
    """A near miss is not run: the shell says what it took it for."""
    before = len(shell.recorder.calls)
    assert shell.handle("/papers graph") == (
        "Did you mean `/paper graph`? Type `help` for what the shell understands.\n"
    )
    assert shell.handle("@paperbotty graph").startswith("Did you mean `@paperbot graph`?")
    assert len(shell.recorder.calls) == before
    assert "in the thread" in shell.handle("@PaperBot graph")


def test_save_n_and_the_home_tab_and_the_reading_list(shell):
    shell.handle("/paper graph sparsification")
    saved = shell.handle("save 1")
    assert "replaces the previous answer" in saved
    assert "[2] Saved ✓" in saved
    assert shell.handle("save 1") == "That paper is already on your reading list.\n"
    assert "no paper 9" in shell.handle("save 9")
    export = shell.handle("/paper saved export")
    assert "paperbot sent you a file in a direct message: paperbot-reading-list.bib" in export
    assert "@inproceedings{7ANDviElAo," in export
    assert "as a BibTeX file in a direct message" in export
    listing = shell.handle("/paper saved")
    assert "Your reading list (1 paper)" in listing
    home = shell.handle("home")
    assert "--- your App Home tab ---" in home
    assert MOG_TITLE in home
    assert "[1] Abstract   [2] Remove" in home
    window = shell.handle("1")
    assert "--- a window over Slack ---" in window
    assert "The source code is available" in window
    emptied = shell.handle("home") and shell.handle("2")
    assert "Your reading list is empty." in emptied


def test_every_run_gets_new_message_ids(settings):
    """The "already answered" claims outlive a run in the database; a second run's messages
    must not look like the first run's."""
    for _ in range(2):
        out = io.StringIO()
        assert main(["--once", "@paperbot graph sparsification"], settings, out=out) == 0
        assert "in the thread" in out.getvalue() and MOG_TITLE in out.getvalue()


def _pipe_stdin(monkeypatch) -> Any:
    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys, "stdin", os.fdopen(read_end, "r"))
    return os.fdopen(write_end, "w")


def _wait_for(out: io.StringIO, text: str, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in out.getvalue():
            return True
        time.sleep(0.05)
    return False


def test_the_shell_prints_the_paper_of_the_day_of_its_own_channel(tmp_path, monkeypatch):
    """A subscription in the shell's #research is served by the shell's own scheduler (a
    time already past today is due at once), and the post is printed without a keypress; a
    real channel's subscription in the same database is left to the real bot."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'shell.db'}")
    other = Settings(
        database_url=settings.database_url, digest_channel="CREALTEAM", digest_time="00:00"
    )
    typed = _pipe_stdin(monkeypatch)
    out = io.StringIO()
    done = threading.Thread(target=main, args=([], other), kwargs={"out": out}, daemon=True)
    done.start()
    typed.write("/paper subscribe 00:00 UTC daily\n")
    typed.flush()
    assert _wait_for(out, "Paper of the day ·"), out.getvalue()
    typed.write("quit\n")
    typed.flush()
    done.join(timeout=20)
    assert not done.is_alive()
    assert "paperbot, in #research" in out.getvalue()
    store = Store(settings.database_url)
    try:
        assert store.latest_claim_date("CREALTEAM") is None
    finally:
        store.close()


def test_once_does_not_schedule(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'shell.db'}")
    out = io.StringIO()
    assert main(["--once", "/paper subscribe 00:00 UTC daily"], settings, out=out) == 0
    store = Store(settings.database_url)
    try:
        assert store.latest_claim_date("C0RESEARCH") is None
    finally:
        store.close()


@pytest.mark.parametrize(("asked", "on_the_terminal"), [(None, "WARNING"), ("DEBUG", "DEBUG")])
def test_the_log_goes_to_a_file_and_reaches_the_terminal_only_when_asked(
    tmp_path, asked, on_the_terminal
):
    root = logging.getLogger()
    terminal = logging.StreamHandler(io.StringIO())
    root.addHandler(terminal)
    try:
        path = tmp_path / "state" / "shell.log"
        with logs_in_file(Settings(log_level=asked), path) as note:
            assert terminal.level == logging.getLevelName(on_the_terminal)
            logging.getLogger("bot.test").info("a line for the file")
        assert terminal.level == logging.NOTSET
        assert note.startswith(f"The bot's log: {path}")
        assert ("shows it here too" in note) == (asked is None)
        assert "INFO bot.test: a line for the file" in path.read_text(encoding="utf-8")
    finally:
        root.removeHandler(terminal)


def test_save_and_dismiss_take_the_number_on_the_card(shell):
    """The second page's cards read 6 to 10, and those are the numbers ``save`` takes."""
    shell.handle("/paper graph neural networks")
    assert "(6\u201310)" in shell.handle("more")
    assert shell.handle("save 1") == (
        "The last answer has no paper 1 to save: its papers are numbered 6\u201310.\n"
    )
    saved = shell.handle("save 7")
    cards = saved.split("\n" + "-" * 40 + "\n")[1:]
    assert [card.startswith("7. ") for card in cards] == [False, True, False, False, False]
    assert ["[6] Saved ✓" in card for card in cards] == [False, True, False, False, False]
    assert shell.handle("save 7") == "That paper is already on your reading list.\n"


SAVE_USAGE = "Write it like `save 6`: the number on the paper's card in the last answer.\n"


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("sve 6", "Did you mean `save 6`? Type `help` for what the shell understands.\n"),
        ("dimiss 2", "Did you mean `dismiss 2`? Type `help` for what the shell understands.\n"),
        ("mroe", "Did you mean `more`? Type `help` for what the shell understands.\n"),
        ("sorces", "Did you mean `sources`? Type `help` for what the shell understands.\n"),
        ("neew", "Did you mean `new`? Type `help` for what the shell understands.\n"),
        ("nwe", "Did you mean `new`? Type `help` for what the shell understands.\n"),
        ("enw", "Did you mean `new`? Type `help` for what the shell understands.\n"),
        ("save six", SAVE_USAGE),
        ("save", SAVE_USAGE),
        ("save 0", "The last answer has no paper 0 to save: its papers are numbered 1\u20135.\n"),
        ("save 99", "The last answer has no paper 99 to save: its papers are numbered 1\u20135.\n"),
        ("save \u00b2", SAVE_USAGE),
        ("dismiss x", "Write it like `dismiss 2`: the number on the suggestion's card"),
        ("dismiss 3", "The last answer has no suggestion 3: try `foryou` or `home`.\n"),
        ("related", "Write it like `related graph neural networks`: the message to find papers"),
    ],
)
def test_a_mistyped_gesture_gets_a_clear_answer_and_sends_nothing(shell, line, answer):
    shell.handle("/paper graph neural networks")
    before = len(shell.recorder.calls)
    assert shell.handle(line).startswith(answer)
    assert len(shell.recorder.calls) == before


def test_a_message_is_never_taken_for_a_typo(shell):
    assert shell.handle("hello") == NO_ANSWER
    assert shell.handle("save the date for the reading group") == NO_ANSWER
    for message in ("now", "few", "nwe graph pruning results"):
        assert shell.handle(message) == NO_ANSWER, "an English word, or a word in a sentence"


def test_a_pasted_link_without_a_preview_says_why(shell):
    unknown = shell.handle("look at https://openreview.net/forum?id=NoSuchPaper1&noteId=abc")
    assert " ".join(unknown.split()) == (
        "paperbot shows no preview: it has no paper with the OpenReview id "
        "\u201cNoSuchPaper1\u201d. In Slack the link stays as it is."
    )
    preprint = shell.handle("see https://arxiv.org/abs/2401.00001v2")
    assert "it has no paper with the arXiv id \u201c2401.00001\u201d." in " ".join(preprint.split())
    elsewhere = shell.handle("see https://example.com/abs/2401.00001")
    assert "it previews OpenReview and arXiv links only" in elsewhere
