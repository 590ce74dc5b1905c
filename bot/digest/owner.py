"""Who holds a daily post's claim, in a form that tells whether that process still lives.

A claim names its owner as ``host/pid/random``. Another process on the same host can ask the
operating system whether that pid still runs, so a ``python -m bot digest`` killed by cron's
timeout does not hold the day's post for the rest of the lease; an owner on another host is
judged by the lease alone.
"""

from __future__ import annotations

import os
import socket
import uuid

_HOST_CHARS = 40
"""Owner ids live in a 64-character column: host, pid and 8 random hex digits fit."""


def new_owner() -> str:
    return f"{socket.gethostname()[:_HOST_CHARS]}/{os.getpid()}/{uuid.uuid4().hex[:8]}"


def owner_gone(owner: str) -> bool:
    """True when ``owner`` ran on this host and its process no longer exists."""
    host, _, rest = owner.partition("/")
    pid_text, _, _ = rest.partition("/")
    if host != socket.gethostname()[:_HOST_CHARS] or not (
        pid_text.isascii() and pid_text.isdigit()
    ):
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
