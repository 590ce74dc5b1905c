"""The model's graph saved with its packed matrices, once per host: mapped by each model
opened after, the same vectors bit for bit, and never used on another ONNX Runtime release
or CPU, nor when damaged."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from bot.search import prepacked
from bot.search.embedding import GRAPH_PATH, WEIGHTS_RECIPE_PATH, Embedder
from bot.search.model_weights import key_name
from bot.search.prepacked import DATA, PREFIX, prepacked_key
from bot.search.snapshot_files import MANIFEST

TEXTS = ("graph neural networks for molecules", "how do LLMs know when they follow instructions?")


@pytest.fixture(scope="module")
def in_memory() -> np.ndarray:
    """Every text's vector with the weights widened and packed in this process's memory."""
    return _vectors(Embedder())


def _vectors(embedder: Embedder) -> np.ndarray:
    return embedder.embed_tokens([embedder.tokens(text) for text in TEXTS])


def _key(version: str = onnxruntime.__version__) -> dict:
    recipe = json.loads(WEIGHTS_RECIPE_PATH.read_text(encoding="utf-8"))
    return prepacked_key(Embedder().fingerprint, recipe, GRAPH_PATH.read_bytes(), version)


def _folders(home: Path) -> list[Path]:
    return sorted(home.glob(f"{PREFIX}*"))


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == prepacked.__name__]


def test_the_graph_is_saved_once_and_mapped_by_the_next_model_with_the_same_vectors(
    tmp_path, in_memory, caplog
) -> None:
    with caplog.at_level(logging.INFO):
        first = Embedder(weights_home=tmp_path)
    (line,) = _lines(caplog)
    assert "none was saved yet" in line.getMessage()
    (folder,) = _folders(tmp_path)
    assert folder.name == PREFIX + key_name(_key())
    stamp = (folder / DATA).stat().st_mtime_ns
    caplog.clear()
    with caplog.at_level(logging.INFO):
        second = Embedder(weights_home=tmp_path)
        second.open_lone_session()
    assert _lines(caplog) == []
    assert (folder / DATA).stat().st_mtime_ns == stamp
    assert str(folder / DATA) in Path("/proc/self/maps").read_text()
    assert _vectors(first).tobytes() == _vectors(second).tobytes() == in_memory.tobytes()
    lone = second.embed_tokens([second.tokens(TEXTS[0])], lone=True)
    assert lone.tobytes() == in_memory[:1].tobytes()


def test_another_onnxruntime_release_or_cpu_has_its_own_key() -> None:
    assert key_name(_key("1.31.0")) != key_name(_key())


def test_a_graph_saved_on_another_cpu_is_not_used(tmp_path, in_memory, monkeypatch) -> None:
    monkeypatch.setattr(prepacked, "cpu_signature", lambda: "another CPU")
    Embedder(weights_home=tmp_path)
    (theirs,) = _folders(tmp_path)
    monkeypatch.undo()
    embedder = Embedder(weights_home=tmp_path)
    ours = tmp_path / (PREFIX + key_name(_key()))
    assert _folders(tmp_path) == sorted([theirs, ours])
    maps = Path("/proc/self/maps").read_text()
    assert str(ours / DATA) in maps
    assert _vectors(embedder).tobytes() == in_memory.tobytes()


def test_a_folder_of_another_key_under_this_name_is_refused_and_saved_again(
    tmp_path, in_memory, monkeypatch, caplog
) -> None:
    monkeypatch.setattr(prepacked, "cpu_signature", lambda: "another CPU")
    Embedder(weights_home=tmp_path)
    (theirs,) = _folders(tmp_path)
    monkeypatch.undo()
    ours = tmp_path / (PREFIX + key_name(_key()))
    theirs.rename(ours)
    with caplog.at_level(logging.INFO):
        embedder = Embedder(weights_home=tmp_path)
    (line,) = _lines(caplog)
    assert line.levelno == logging.WARNING
    assert "another model, ONNX Runtime or CPU" in line.getMessage()
    assert json.loads((ours / MANIFEST).read_text())["body"]["meta"]["key"] == _key()
    assert _vectors(embedder).tobytes() == in_memory.tobytes()


def test_a_truncated_data_file_is_refused_and_saved_again(tmp_path, in_memory, caplog) -> None:
    Embedder(weights_home=tmp_path)
    (folder,) = _folders(tmp_path)
    data = folder / DATA
    data.write_bytes(data.read_bytes()[:-4096])
    with caplog.at_level(logging.INFO):
        embedder = Embedder(weights_home=tmp_path)
    (line,) = _lines(caplog)
    assert line.levelno == logging.WARNING and "bytes where" in line.getMessage()
    assert _vectors(embedder).tobytes() == in_memory.tobytes()


def test_where_nothing_can_be_saved_the_model_runs_as_before(tmp_path, in_memory) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("in the way of the folder")
    embedder = Embedder(weights_home=blocked / "model")
    assert _vectors(embedder).tobytes() == in_memory.tobytes()
