"""The command line's argument parser: a mistake is one line that names it, then exit 2.

``argparse`` prints the whole usage block before its message; at a start-up that a platform
or cron runs, the line that says what is wrong (``unrecognized arguments: --chanel``) is the
one that matters, and ``--help`` still prints the usage.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from bot.settings import StartupError


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise StartupError(f"{message} (see {self.prog} --help)")
