"""The import contracts in ``pyproject.toml`` hold: each part imports only what it may."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept() -> None:
    """In a process of its own: the linter reconfigures logging and ``sys.path`` as a command
    line tool may, which would leak into the tests that run after it."""
    linted = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr
