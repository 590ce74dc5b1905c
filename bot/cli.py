"""Command-line entry point: the ``paperbot`` script and ``python -m bot``.

The one place that chooses what runs: a subcommand goes to the module that owns it; otherwise
the mode follows the flags or the environment (``bot.slack.modes.choose_mode``), and the shell
or ``bot.wiring.root.run`` serves it. It is also the one place where a start-up failure becomes
one line and exit code 2.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from bot.arguments import program
from bot.settings import DEFAULT_LOG_LEVEL, LOG_FORMAT, Settings, StartupError

MODE_FLAGS = {"--socket": "socket", "--http": "http", "--shell": "shell"}
IF_CONFIGURED = "--if-configured"

USAGE = """\
usage: {prog} [--socket | --http] [--if-configured]
       {prog} shell [--once TEXT]     (or: {prog} --shell [--once TEXT])
       {prog} search [options] [--] QUERY...
       {prog} digest [--channel C] [--dry-run]
       {prog} embed [--corpus PATH]
       {prog} ingest [FEED...] [--days N] [--via oai|api] [--scheduled]

With no arguments the mode follows the environment: Socket Mode when SLACK_BOT_TOKEN and
SLACK_APP_TOKEN are set, HTTP when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set, and a
local shell when no SLACK_* variable is set. --if-configured (for a Procfile that starts
every process type) exits 0 with one line when the environment does not set up that mode.
{prog} SUBCOMMAND --help describes a subcommand's options.
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in {"-h", "--help", "help"}:
        print(USAGE.format(prog=program()), end="")
        return 0
    try:
        settings = Settings.from_env()
        logging.basicConfig(level=settings.log_level or DEFAULT_LOG_LEVEL, format=LOG_FORMAT)
        return _dispatch(args, settings)
    except StartupError as error:
        print(f"paperbot: {error}", file=sys.stderr)
        return 2


def _dispatch(args: list[str], settings: Settings) -> int:
    if args and args[0] == "search":
        from bot.render.notes import result_text
        from bot.search.cli import main as search_main

        return search_main(args[1:], settings, result_text)
    if args and args[0] == "digest":
        from bot.digest.cli import main as digest_main
        from bot.slack.client import digest_client
        from bot.wiring.root import distributed_clients

        clients = distributed_clients(settings) if settings.distributed else None
        return digest_main(args[1:], settings, digest_client(settings), clients)
    if args and args[0] == "embed":
        from bot.search.embed_cli import main as embed_main

        status = embed_main(args[1:], settings)
        if status != 0 or not settings.feeds:
            return status
        from bot.feeds.cli import reembed_stored

        return reembed_stored(settings)
    if args and args[0] == "ingest":
        from bot.digest.owner import new_owner, owner_gone
        from bot.feeds.cli import main as ingest_main

        return ingest_main(args[1:], settings, owner=new_owner(), owner_gone=owner_gone)
    if args and args[0] in {"shell", "--shell"}:
        from bot.shell.repl import main as shell_main

        return shell_main(args[1:], settings)
    modes = [MODE_FLAGS[arg] for arg in args if arg in MODE_FLAGS]
    unknown = [arg for arg in args if arg not in MODE_FLAGS and arg != IF_CONFIGURED]
    if unknown:
        kind = "option" if unknown[0].startswith("-") else "argument"
        print(f"paperbot: unknown {kind} {unknown[0]!r} (see {program()} --help)", file=sys.stderr)
        return 2
    if len(modes) > 1:
        print("paperbot: choose one of --socket and --http", file=sys.stderr)
        return 2
    return _start(settings, modes[0] if modes else None, if_configured=IF_CONFIGURED in args)


def _start(settings: Settings, forced: str | None, *, if_configured: bool) -> int:
    """Run the bot in the forced mode or the one the environment implies.

    ``if_configured`` is for a platform that starts every process type of the Procfile: a
    process whose mode the environment does not select says so and exits 0.
    """
    from bot.slack.modes import MODE_NAMES, SHELL, choose_mode, mode_configured
    from bot.wiring.root import run

    if if_configured and forced is not None and not mode_configured(settings, forced):
        print(f"paperbot: {MODE_NAMES[forced]} is not configured here; exiting", flush=True)
        return 0
    mode = choose_mode(settings, forced)
    if mode == SHELL:
        from bot.shell.repl import main as shell_main

        return shell_main([], settings)
    return run(settings, mode)
