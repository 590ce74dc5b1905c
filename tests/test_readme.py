"""The README's promises that drift silently: CI runs the set-up and test commands a newcomer
copies, and every setting the bot reads is documented in the README and in ``.env.example``."""

from __future__ import annotations

import re

import pytest
from project import PROJECT_ROOT

from bot.settings import Settings

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _setup_commands() -> dict[str, str]:
    """The commands of the README's set-up block, keyed by the comment line above each."""
    section = README.split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands: dict[str, str] = {}
    comment = ""
    for line in block.splitlines():
        if line.startswith("#"):
            comment = line.lstrip("# ")
        elif line.strip():
            commands[comment] = line.strip()
    return commands


class _RecordingEnvironment(dict[str, str]):
    """An empty environment that remembers every variable the settings asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        self.asked.add(name)
        return default


def test_ci_runs_the_readmes_virtual_environment_and_test_command_in_that_order() -> None:
    commands = _setup_commands()
    venv = next(command for command in commands.values() if "-m venv" in command)
    tests = commands["Run the tests:"]
    ci_lines = [line.removesuffix(" || exit 1") for line in CI_RUN.splitlines()]
    assert venv in ci_lines and tests in ci_lines
    assert ci_lines.index(venv) < ci_lines.index(tests)
    assert "pytest" in tests


def test_the_readme_runs_the_installed_command() -> None:
    assert _setup_commands()["Run the bot (a local shell until Slack tokens are configured):"] == (
        "pip install -e . && paperbot"
    )


def test_every_setting_is_in_the_readme_table_and_in_env_example() -> None:
    environment = _RecordingEnvironment()
    Settings.from_env(environment, dotenv=False)
    assert environment.asked, "the settings read no variable through the mapping given"
    table = set(re.findall(r"^\| `([A-Z_]+)` \|", README, flags=re.MULTILINE))
    example = set(
        re.findall(
            r"^([A-Z_]+)=",
            (PROJECT_ROOT / ".env.example").read_text(encoding="utf-8"),
            flags=re.MULTILINE,
        )
    )
    assert table == environment.asked
    assert example == environment.asked


def test_the_skipped_postgres_tests_say_to_source_the_script_as_the_readme_does(
    monkeypatch,
) -> None:
    from test_store import postgres_url_or_skip

    monkeypatch.delenv("PAPERBOT_TEST_POSTGRES_URL", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        postgres_url_or_skip()
    assert "`source .ci/postgres.sh`" in README
    assert "`source .ci/postgres.sh`" in str(skipped.value)
