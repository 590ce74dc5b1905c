"""Where the checkout is, for tests that start ``python -m bot`` or read project files."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
