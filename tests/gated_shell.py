"""``paperbot shell`` as a person runs it, except that its scheduler starts only when the test
writes a byte to the file descriptor named as the first argument.

The paper of the day a channel is due is posted as soon as the scheduler starts; holding the
start lets a test put the person at the prompt, part-way through typing, before the post
arrives, instead of racing the scheduler's thread.
"""

from __future__ import annotations

import os
import sys
import threading

from bot import cli
from bot.digest.schedule import DigestScheduler
from bot.shell import repl


class _GatedScheduler(DigestScheduler):
    gate = -1

    def start(self) -> None:
        def when_told() -> None:
            os.read(self.gate, 1)
            DigestScheduler.start(self)

        threading.Thread(target=when_told, name="gate", daemon=True).start()


if __name__ == "__main__":
    _GatedScheduler.gate = int(sys.argv[1])
    repl.DigestScheduler = _GatedScheduler  # type: ignore[misc]
    sys.exit(cli.main(["shell"]))
