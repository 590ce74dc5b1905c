"""Where the interactive shell's log lines go: a file, so that the terminal holds only the
conversation.

The app and the scheduler log at INFO as they work. In a server's output that is what an
operator reads; in the shell those lines would land between the prompt and what the person
types. So the shell writes every line to a file it names at start, and lets only warnings and
errors reach the terminal, unless ``PAPERBOT_LOG_LEVEL`` asks for more there.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from bot.settings import DEFAULT_LOG_LEVEL, LOG_FORMAT, Settings

TERMINAL_LEVEL = "WARNING"


def log_file_path(environ: Mapping[str, str] = os.environ) -> Path:
    """The XDG state directory's ``paperbot/shell.log``: kept across runs, in no project's
    folder."""
    state = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "paperbot" / "shell.log"


def _shown(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


@contextmanager
def logs_in_file(settings: Settings, path: Path) -> Iterator[str]:
    """Send the root logger's lines to ``path`` while the shell runs, and keep the terminal's
    handlers to warnings unless the level was asked for; yields the one line that says so.
    Everything is put back afterwards (the shell may run inside another program's logging)."""
    root = logging.getLogger()
    saved_root_level = root.level
    saved_levels = [(handler, handler.level) for handler in root.handlers]
    file_level = logging.getLevelName(settings.log_level or DEFAULT_LOG_LEVEL)
    terminal_level = logging.getLevelName(settings.log_level or TERMINAL_LEVEL)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler: logging.Handler | None = logging.FileHandler(path, encoding="utf-8")
    except OSError as error:
        file_handler = None
        note = f"The bot's log is not kept ({error.strerror}: {_shown(path)})."
    else:
        file_handler.setFormatter(logging.Formatter(LOG_FORMAT))
        file_handler.setLevel(file_level)
        root.addHandler(file_handler)
        note = f"The bot's log: {_shown(path)}"
        if settings.log_level is None:
            note += f" (PAPERBOT_LOG_LEVEL={DEFAULT_LOG_LEVEL} shows it here too)"
    for handler, level in saved_levels:
        handler.setLevel(max(level, terminal_level))
    root.setLevel(min(file_level, terminal_level))
    try:
        yield note
    finally:
        if file_handler is not None:
            root.removeHandler(file_handler)
            file_handler.close()
        for handler, level in saved_levels:
            handler.setLevel(level)
        root.setLevel(saved_root_level)
