"""The terminal the person converses in: the prompt, the lines they type, the answers, and
what the bot posts by itself meanwhile.

The paper of the day is posted from the scheduler's thread while the person may be typing at
the prompt. Printed as it comes, it would leave them typing below a post with no prompt. So a
post that arrives at the prompt replaces the prompt's line and is followed by a fresh prompt
holding what they had typed, as chat programs do. With readline the prompt is known to be on
screen from the moment readline has printed it (its pre-input hook) until the line is read;
between readline's start-up hook and that moment a post waits, so it never lands between
readline's prompt and the typing.
"""

from __future__ import annotations

import sys
import threading
from types import ModuleType, TracebackType
from typing import TextIO

PROMPT = "you> "
_CLEAR_LINE = "\r\x1b[K"


class Console:
    """Prompts on a terminal; echoes piped lines after the prompt, so that a transcript
    reads like a typed session instead of prompts glued to answers."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._typed = sys.stdin.isatty()
        self._lock = threading.Lock()
        self._at_prompt = False
        self._holding = False
        self._readline = self._line_editing() if self._typed else None

    def __enter__(self) -> Console:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._readline is not None:
            self._readline.set_startup_hook(None)
            self._readline.set_pre_input_hook(None)

    def _line_editing(self) -> ModuleType | None:
        """Readline, with the hooks that say when its prompt is on screen (None without)."""
        try:
            import readline  # line editing and history for input()
        except ImportError:
            return None
        if not hasattr(readline, "set_pre_input_hook"):
            return None
        readline.set_startup_hook(self._before_prompt)
        readline.set_pre_input_hook(self._prompt_shown)
        return readline

    def read_line(self) -> str:
        """The next line typed or piped in; EOFError (or KeyboardInterrupt) at the end."""
        if not self._typed:
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            self.write(f"{PROMPT}{line.rstrip()}\n")
            return line
        if self._readline is None:
            with self._lock:
                self._at_prompt = True
        try:
            return input(PROMPT)
        except (EOFError, KeyboardInterrupt):
            self.write("\n")
            raise
        finally:
            self._release()
            with self._lock:
                self._at_prompt = False

    def write(self, text: str) -> None:
        """An answer to what was typed (no prompt is on screen)."""
        with self._lock:
            self._out.write(text)
            self._out.flush()

    def post(self, text: str) -> None:
        """What the bot posted by itself: at the prompt, above a fresh prompt that keeps what
        was typed so far."""
        if not text:
            return
        with self._lock:
            if self._at_prompt and self._readline is not None:
                text = f"{_CLEAR_LINE}{text}{PROMPT}{self._readline.get_line_buffer()}"
            elif self._at_prompt:
                text = f"\n{text}{PROMPT}"
            self._out.write(text)
            self._out.flush()

    def _before_prompt(self) -> None:
        self._lock.acquire()
        self._holding = True

    def _prompt_shown(self) -> None:
        self._at_prompt = True
        self._release()

    def _release(self) -> None:
        if self._holding:
            self._holding = False
            self._lock.release()
