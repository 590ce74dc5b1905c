"""Where the checkout is, and ``python -m bot`` started in a child process, for tests that
run the real bot or read project files."""

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def bench_script(name: str) -> ModuleType:
    """``bench/NAME.py``, loaded from its path because ``bench/`` is not a package (with
    ``bench/`` on the path for the bench modules it imports)."""
    path = PROJECT_ROOT / "bench" / f"{name}.py"
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    """A loopback port nothing listens on, for a bot process to serve HTTP on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_bot(cwd: Path, **variables: str) -> subprocess.Popen[str]:
    """``python -m bot`` in ``cwd`` with this environment less its ``SLACK_*`` variables,
    plus ``variables``; its stdout and stderr are pipes of text. It serves the seed papers
    unless ``variables`` say otherwise (``PAPERBOT_CORPUS=""`` for a served bot's default,
    the catalogue, which takes seconds more to load)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SLACK_")}
    env.update(PYTHONPATH=str(PROJECT_ROOT), PAPERBOT_CORPUS="seeds")
    env.update(variables)
    return subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
