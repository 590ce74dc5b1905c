"""The shell's For you gestures: ``foryou`` is ``/paper for me``, ``dismiss N`` presses **Not
relevant** on suggestion N (in an answer or in the App Home), and ``help`` lists both."""

from __future__ import annotations

from test_shell import log_folder, settings, shell  # noqa: F401  (fixtures reused here)

from bot.shell.repl import HELP


def _suggested_titles(output: str) -> list[str]:
    """The first line of each numbered card ("1. Title (url)") in the shell's output."""
    return [
        line.split(". ", 1)[1]
        for line in output.splitlines()
        if line[:2] in {f"{n}." for n in range(1, 10)}
    ]


def test_help_lists_foryou_and_dismiss():
    assert "\n  foryou " in HELP and "\n  dismiss N " in HELP and "/paper forget me" in HELP


def test_foryou_before_any_save_says_what_to_do(shell):  # noqa: F811
    assert "Save at least 3 papers (you have 0)" in shell.handle("foryou")


def test_dismiss_hides_a_suggestion_and_offers_undo(shell):  # noqa: F811
    for number in range(1, 6):
        shell.handle("/paper graph neural networks")
        shell.handle(f"save {number}")
    first = shell.handle("foryou")
    assert "which you saved" in first
    titles = _suggested_titles(first)
    after = shell.handle("dismiss 2")
    assert "I won't suggest it again" in after and "Undo" in after
    assert titles[1] not in _suggested_titles(after)
    assert shell.handle("dismiss 9").startswith("The last answer has no suggestion 9")
    home = shell.handle("home")
    assert "For you" in home
    assert "\nHidden " in shell.handle("dismiss 1")
