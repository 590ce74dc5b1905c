"""The command line's argument parser: a mistake is one line that names it, then exit 2.

``argparse`` prints the whole usage block before its message; at a start-up that a platform
or cron runs, the line that says what is wrong (``unrecognized arguments: --chanel``) is the
one that matters, and ``--help`` still prints the usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from bot.settings import StartupError

MODULE_PROGRAM = "python -m bot"
SCRIPT_PROGRAM = "paperbot"


def program() -> str:
    """The command that started this process, as usage lines and hints should spell it:
    ``python -m bot`` when run as the module, else the installed script, ``paperbot`` (also
    when the bot is called from other code, such as the tests, whose name would mislead)."""
    started = Path(sys.argv[0] if sys.argv else "")
    if started.name == "__main__.py" and started.parent.name == "bot":
        return MODULE_PROGRAM
    return SCRIPT_PROGRAM


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise StartupError(f"{message} (see {self.prog} --help)")
