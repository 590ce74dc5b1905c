"""Command-line entry point: ``python -m bot`` and the ``paperbot`` script.

Subcommands are routed to the module that owns them; only argument routing lives here.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from bot.settings import Settings, SettingsError

SUBCOMMANDS = ("search", "digest", "shell")
MODE_FLAGS = {"--socket": "socket", "--http": "http", "--shell": "shell"}

USAGE = """\
usage: python -m bot [--socket | --http | --shell]
       python -m bot shell [--once TEXT]
       python -m bot search [options] [--] QUERY...
       python -m bot digest [--channel C] [--dry-run]

With no arguments the mode follows the environment: Socket Mode when SLACK_BOT_TOKEN and
SLACK_APP_TOKEN are set, HTTP when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set, and a
local shell when no SLACK_* variable is set.
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in {"-h", "--help", "help"}:
        print(USAGE, end="")
        return 0
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args and args[0] == "search":
        from bot.search.cli import main as search_main

        return search_main(args[1:], settings)
    if args and args[0] == "digest":
        from bot.digest.cli import main as digest_main

        return digest_main(args[1:], settings)
    if args and args[0] == "shell":
        from bot.shell.repl import main as shell_main

        return shell_main(args[1:], settings)
    mode = None
    if args:
        if len(args) > 1 or args[0] not in MODE_FLAGS:
            print(USAGE, end="", file=sys.stderr)
            return 2
        mode = MODE_FLAGS[args[0]]
    from bot.slack.app import run

    return run(settings, mode)
