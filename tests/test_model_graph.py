"""The graph the bot runs, and the recipe of its weights, are what ``tools/model_graph.py``
makes of the pinned model: nobody edits them by hand, and a new pinned model needs the tool
run again (``bot.search.embedding`` checks the model's hash, not the graph's)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from bot.search.embedding import model_path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "model_graph.py"


def test_the_committed_graph_and_recipe_are_what_the_tool_makes_of_the_pinned_model() -> None:
    spec = importlib.util.spec_from_file_location("model_graph", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    files = tool.rendered(model_path())
    assert len(files) == 2
    for path, content in files.items():
        assert path.read_bytes() == content, f"{path.name}: run python tools/model_graph.py"
