"""The import contracts in ``pyproject.toml`` hold: each part imports only what it may."""

from __future__ import annotations

import sys
from pathlib import Path

from importlinter.cli import lint_imports

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept(monkeypatch) -> None:
    monkeypatch.chdir(PROJECT_ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the linter puts the directory first
    assert lint_imports(config_filename="pyproject.toml", no_cache=True) == 0
