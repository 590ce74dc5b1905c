"""The interactive shell in a real pseudo-terminal, as a person meets it: default settings,
readline, the scheduler's thread posting while they type.

Nothing here sleeps: every step waits for the output it needs (the deadline only turns a hang
into a failure).
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from project import PROJECT_ROOT

from bot.render.terminal import WIDTH
from bot.shell.console import PROMPT

DEADLINE_SECONDS = 20
_LOG_LINE = re.compile(r"\b(INFO|DEBUG) [\w.]+: ")


class _Terminal:
    """A process on the secondary end of a pseudo-terminal; everything it printed so far."""

    def __init__(
        self, argv: list[str], cwd: Path, env: dict[str, str], pass_fds: tuple[int, ...]
    ) -> None:
        self._primary, secondary = os.openpty()
        self.process = subprocess.Popen(
            argv,
            stdin=secondary,
            stdout=secondary,
            stderr=secondary,
            cwd=cwd,
            env=env,
            pass_fds=pass_fds,
        )
        os.close(secondary)
        self.output = ""

    def type(self, keys: str) -> None:
        os.write(self._primary, keys.encode())

    def wait_for(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while (match := re.search(pattern, self.output, re.DOTALL)) is None:
            left = deadline - time.monotonic()
            assert left > 0, f"waited for {pattern!r}; the terminal shows:\n{self.output}"
            ready, _, _ = select.select([self._primary], [], [], left)
            if ready:
                try:
                    self.output += os.read(self._primary, 65536).decode("utf-8", "replace")
                except OSError:  # the process ended and closed its end
                    break
        assert match is not None, (
            f"no {pattern!r} before the end; the terminal shows:\n{self.output}"
        )
        return match

    def close(self) -> int:
        try:
            return self.process.wait(timeout=DEADLINE_SECONDS)
        finally:
            os.close(self._primary)


def _default_env() -> dict[str, str]:
    """This environment less every setting of the bot's: a shell with its defaults."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("SLACK_", "PAPERBOT_", "XDG_"))
    }


def test_no_log_line_reaches_the_terminal_and_a_post_leaves_a_fresh_prompt(tmp_path):
    """Default settings, a subscription due since midnight, and the person part-way through
    typing ``graph`` when the scheduler starts and posts the paper of the day: the post is
    followed by the prompt with ``graph`` still on it, and no log line shows."""
    env = _default_env()
    env.update(TERM="dumb", XDG_STATE_HOME=str(tmp_path / "state"), PYTHONPATH=str(PROJECT_ROOT))
    subscribe = [sys.executable, "-m", "bot", "shell", "--once", "/paper subscribe 00:00 UTC daily"]
    subprocess.run(subscribe, cwd=tmp_path, env=env, check=True, capture_output=True)
    gate_read, gate_write = os.pipe()
    driver = [sys.executable, str(Path(__file__).parent / "gated_shell.py"), str(gate_read)]
    terminal = _Terminal(driver, tmp_path, env, pass_fds=(gate_read,))
    os.close(gate_read)
    try:
        terminal.wait_for(r"you> $")
        terminal.type("graph")
        terminal.wait_for(r"you> graph$")
        os.write(gate_write, b"go")
        terminal.wait_for(
            r"you> graph.*--- paperbot, in #research ---.*Paper 1 of 76\s+you> graph$"
        )
        terminal.type("\x15quit\r")
    finally:
        os.close(gate_write)
        exit_code = terminal.close()
    assert exit_code == 0
    assert _LOG_LINE.search(terminal.output) is None, terminal.output
    log_file = tmp_path / "state" / "paperbot" / "shell.log"
    assert f"The bot's log: {log_file} (PAPERBOT_LOG_LEVEL=INFO shows it here too)" in " ".join(
        terminal.output.split()
    )
    # The start-up notes are wrapped as messages are, never by the terminal inside a word.
    start_up = terminal.output.split(PROMPT)[0].splitlines()
    assert all(len(line) <= WIDTH or " " not in line.strip() for line in start_up), start_up
    log = log_file.read_text(encoding="utf-8")
    assert "INFO apscheduler" in log and "posted the paper of the day in C0RESEARCH" in log


def test_save_takes_the_number_printed_on_the_card(tmp_path):
    """After ``more`` the cards read 6 to 10: ``save 6`` saves the sixth paper (not the
    eleventh, and not "no paper 6"), and ``save 1`` says which numbers there are."""
    env = _default_env()
    env.update(
        TERM="dumb",
        XDG_STATE_HOME=str(tmp_path / "state"),
        PAPERBOT_SCHEDULER="off",
        PAPERBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'shell.db'}",
    )
    paperbot = str(Path(sys.executable).parent / "paperbot")
    terminal = _Terminal([paperbot], tmp_path, env, pass_fds=())
    try:
        terminal.wait_for(r"you> $")
        terminal.type("/paper graph neural network\r")
        terminal.wait_for(r"Next 5\s+you> $")
        terminal.type("more\r")
        page = terminal.wait_for(r"\(6\u201310\)(.*)you> $")[1]
        sixth = re.search(r"^6\. (.+?) \(https://openreview", page, re.MULTILINE | re.DOTALL)
        assert sixth is not None, page
        title = " ".join(sixth[1].split())
        terminal.type("save 1\r")
        terminal.wait_for(r"no paper 1 to save: its papers are numbered 6\u201310\.\s+you> $")
        terminal.type("save 6\r")
        saved = terminal.wait_for(r"save 6\s+(.*)you> $")[1]
        cards = re.split(r"\r?\n-{40}\r?\n", saved)
        assert [("Saved ✓" in card) for card in cards[1:]] == [True, False, False, False, False]
        terminal.type("/paper saved\r")
        reading_list = terminal.wait_for(r"/paper saved\s+(.*)you> $")[1]
    finally:
        terminal.type("\x15quit\r")
        exit_code = terminal.close()
    assert exit_code == 0
    assert "Your reading list (1 paper)" in reading_list
    assert title in " ".join(reading_list.split())


def test_a_lone_mistyped_new_is_asked_about_as_the_slash_command_is(tmp_path):
    """``nwe`` alone is a slip of the shell's ``new``, as ``/paper nwe`` is of ``/paper new``;
    in a sentence it is a message posted in #research."""
    env = _default_env()
    env.update(
        TERM="dumb",
        XDG_STATE_HOME=str(tmp_path / "state"),
        PYTHONPATH=str(PROJECT_ROOT),
        PAPERBOT_SCHEDULER="off",
        PAPERBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'shell.db'}",
    )
    terminal = _Terminal([sys.executable, "-m", "bot"], tmp_path, env, pass_fds=())
    try:
        terminal.wait_for(r"you> $")
        terminal.type("nwe\r")
        terminal.wait_for(
            r"nwe\s+Did you mean `new`\? Type `help` for what the shell understands\.\s+you> $"
        )
        terminal.type("/paper nwe\r")
        terminal.wait_for(r"/paper nwe\s+.*Did you mean `/paper new`\?.*you> $")
        terminal.type("nwe papers on graphs\r")
        terminal.wait_for(r"nwe papers on graphs\s+paperbot does not answer that message.*you> $")
    finally:
        terminal.type("\x15quit\r")
        exit_code = terminal.close()
    assert exit_code == 0
