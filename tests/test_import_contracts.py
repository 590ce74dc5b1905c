"""The import contracts in ``pyproject.toml`` hold, and each of them can fail.

A contract that no import could break guards nothing (the render contract once admitted any
import from the search engine): so for every contract a copy of the code gets one import it
forbids, and ``lint-imports`` must refuse that copy.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]

# contract id -> (the module that gets the import, an import the contract forbids)
FORBIDDEN_IMPORTS: dict[str, tuple[str, str]] = {
    "layers": ("bot/papers/paper.py", "import bot.answers"),
    "digest-posts-through-its-client": ("bot/digest/posting.py", "import bot.slack.respond"),
    "render-reads-results": ("bot/render/notes.py", "from bot.search.engine import SearchIndex"),
    "acyclic": ("bot/search/results.py", "import bot.search.engine"),
    "slack-bolt": ("bot/answers/router.py", "from slack_bolt import App"),
    "slack-sdk": ("bot/render/papers.py", "from slack_sdk import WebClient"),
    "sqlalchemy": ("bot/answers/router.py", "import sqlalchemy"),
    "apscheduler": ("bot/digest/service.py", "import apscheduler"),
    "onnxruntime": ("bot/search/semantic.py", "import onnxruntime"),
    "faiss": ("bot/search/semantic.py", "import faiss"),
    "waitress": ("bot/slack/respond.py", "import waitress"),
    "dotenv": ("bot/cli.py", "import dotenv"),
    "pylatexenc": ("bot/papers/plain.py", "import pylatexenc"),
    "pybtex": ("bot/answers/reading_list.py", "import pybtex"),
    "stemmer": ("bot/search/query.py", "import Stemmer"),
    "tqdm": ("bot/search/cli.py", "import tqdm"),
    "threadpoolctl": ("bot/search/engine.py", "import threadpoolctl"),
    "feed-clients": ("bot/store/ingested.py", "import feedparser"),
}


def lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """In a process of its own: the linter reconfigures logging and ``sys.path`` as a command
    line tool may, which would leak into the tests that run after it. ``-c`` puts ``cwd`` first
    on ``sys.path``, so a copy of the code is linted, not the installed one."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_import_contract_is_kept() -> None:
    linted = lint_imports(PROJECT_ROOT)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_every_contract_has_an_import_that_would_break_it() -> None:
    assert {contract["id"] for contract in CONTRACTS} == set(FORBIDDEN_IMPORTS)


@pytest.mark.parametrize("contract_id", sorted(FORBIDDEN_IMPORTS))
def test_each_contract_refuses_an_import_it_forbids(contract_id: str, tmp_path: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("bot", "handlers"):
        shutil.copytree(PROJECT_ROOT / package, tmp_path / package, ignore=ignore)
    shutil.copy(PROJECT_ROOT / "pyproject.toml", tmp_path)
    module, forbidden = FORBIDDEN_IMPORTS[contract_id]
    assert (tmp_path / module).is_file(), f"{module} is gone: choose another for {contract_id}"
    with (tmp_path / module).open("a", encoding="utf-8") as source:
        source.write(f"\n{forbidden}\n")

    linted = lint_imports(tmp_path, "--contract", contract_id)

    assert linted.returncode != 0, linted.stdout + linted.stderr
    assert "BROKEN" in linted.stdout, linted.stdout + linted.stderr


def slack_sdk_imports(package: str) -> dict[str, set[str]]:
    """Each module file of ``package`` -> what it takes from ``slack_sdk``, as ``module:name``."""
    found: dict[str, set[str]] = {}
    for path in sorted((PROJECT_ROOT / package.replace(".", "/")).rglob("*.py")):
        taken: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                taken.update(f"{alias.name}:" for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                taken.update(f"{node.module}:{alias.name}" for alias in node.names)
        found[str(path.relative_to(PROJECT_ROOT))] = {
            name for name in taken if name.split(":")[0].split(".")[0] == "slack_sdk"
        }
    return found


@pytest.mark.parametrize(
    ("package", "allowed"),
    [
        # Block Kit models, and the error they raise when a block breaks Slack's limits.
        ("bot.render", ("slack_sdk.models.", "slack_sdk.errors:")),
        # The client the digest is handed (a type), and the errors its calls raise.
        ("bot.digest", ("slack_sdk:WebClient", "slack_sdk.errors:")),
    ],
)
def test_slack_sdk_is_used_outside_the_adapter_only_for_what_it_is_allowed(
    package: str, allowed: tuple[str, ...]
) -> None:
    """The contracts see ``slack_sdk`` as one package; which part of it is used is checked here."""
    for module, taken in slack_sdk_imports(package).items():
        for name in taken:
            assert name.startswith(allowed), f"{module} takes {name} from slack_sdk"
