"""The model's float32 weights in one file that every process of a host maps: written once,
mapped by each model opened after, never used when damaged or made for another model."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from bot.search import model_weights, prepacked, semantic
from bot.search.embedding import WEIGHTS_RECIPE_PATH, Embedder, model_path
from bot.search.model_weights import key_name, mapped_weights, weights_key, widened
from bot.search.snapshot_files import MANIFEST

TEXTS = (
    "graph neural networks for molecules",
    "how do LLMs know when they follow instructions?",
    "Spectral sparsification of graphs keeps every cut within a factor of its weight.",
)


@pytest.fixture(scope="module")
def model() -> tuple[bytes, str, list]:
    data = model_path().read_bytes()
    recipe = json.loads(WEIGHTS_RECIPE_PATH.read_text(encoding="utf-8"))
    return data, Embedder().fingerprint, recipe


@pytest.fixture(scope="module")
def in_memory() -> np.ndarray:
    """Every text's vector with the weights widened in this process's memory."""
    embedder = Embedder()
    return embedder.embed_tokens([embedder.tokens(text) for text in TEXTS])


def _vectors(embedder: Embedder) -> np.ndarray:
    return embedder.embed_tokens([embedder.tokens(text) for text in TEXTS])


def _weights_file(home: Path, model: tuple[bytes, str, list]) -> Path:
    _, sha, recipe = model
    return home / key_name(weights_key(sha, recipe)) / "weights.npy"


def _prepacked_data(home: Path) -> Path:
    """The data file of the graph saved with its packed matrices, which a model opened with
    a ``weights_home`` maps in place of the weights file (``bot.search.prepacked``)."""
    (data,) = home.glob(f"{prepacked.PREFIX}*/{prepacked.DATA}")
    return data


def _mapped_files() -> str:
    return Path("/proc/self/maps").read_text()


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == model_weights.__name__]


def test_the_weights_file_is_written_once_and_mapped_by_the_next_model_alike(
    tmp_path, model, in_memory, caplog
) -> None:
    with caplog.at_level(logging.INFO):
        first = Embedder(weights_home=tmp_path)
    (line,) = _lines(caplog)
    assert line.levelno == logging.INFO
    assert "none was written yet" in line.getMessage()
    written = _weights_file(tmp_path, model)
    stamp = written.stat().st_mtime_ns
    caplog.clear()
    with caplog.at_level(logging.INFO):
        second = Embedder(weights_home=tmp_path)
    assert _lines(caplog) == []  # opened as it was, nothing said
    assert written.stat().st_mtime_ns == stamp
    assert str(_prepacked_data(tmp_path)) in _mapped_files()  # made from the weights file
    assert _vectors(first).tobytes() == _vectors(second).tobytes() == in_memory.tobytes()


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-4096])


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("damage", "reason"),
    [(_truncate, "bytes where"), (_flip_a_byte, "does not match its checksum")],
)
def test_a_truncated_or_corrupt_weights_file_is_refused_and_written_again(
    tmp_path, model, caplog, damage, reason
) -> None:
    data, sha, recipe = model
    mapped_weights(tmp_path, data, sha, recipe)
    damage(_weights_file(tmp_path, model))
    with caplog.at_level(logging.INFO):
        file = mapped_weights(tmp_path, data, sha, recipe)
    (line,) = _lines(caplog)
    assert line.levelno == logging.WARNING and reason in line.getMessage()
    assert file is not None and file.tobytes() == widened(data, recipe).tobytes()
    caplog.clear()
    with caplog.at_level(logging.INFO):
        assert mapped_weights(tmp_path, data, sha, recipe) is not None
    assert _lines(caplog) == []  # whole again


def test_the_weights_of_another_model_are_refused_and_this_models_written(
    tmp_path, model, in_memory, caplog
) -> None:
    data, sha, recipe = model
    other = "0" * 64
    mapped_weights(tmp_path, data, other, recipe)  # as if made from another pinned model
    ours = _weights_file(tmp_path, model).parent
    (tmp_path / key_name(weights_key(other, recipe))).rename(ours)
    with caplog.at_level(logging.INFO):
        embedder = Embedder(weights_home=tmp_path)
    (line,) = _lines(caplog)
    assert line.levelno == logging.WARNING
    assert "another model" in line.getMessage()
    assert json.loads((ours / MANIFEST).read_text())["body"]["meta"]["key"]["model"] == sha
    assert _vectors(embedder).tobytes() == in_memory.tobytes()


def test_where_no_folder_can_be_written_the_weights_are_widened_in_memory(
    tmp_path, in_memory, caplog
) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("in the way of the folder")
    with caplog.at_level(logging.INFO):
        embedder = Embedder(weights_home=blocked / "model")
    (line,) = _lines(caplog)
    assert line.levelno == logging.WARNING
    assert "widening the weights in this process's memory" in line.getMessage()
    assert _vectors(embedder).tobytes() == in_memory.tobytes()
    assert list(tmp_path.iterdir()) == [blocked]


def test_the_bots_model_keeps_its_weights_beside_the_saved_indexes(
    tmp_path, model, monkeypatch
) -> None:
    monkeypatch.setattr(semantic, "_weights_home", None)
    semantic.share_host_files(tmp_path)
    embedder = semantic.shared_embedder.__wrapped__()  # a process's first model
    assert str(_prepacked_data(tmp_path / model_weights.MODEL_DIR)) in _mapped_files()
    assert embedder.fingerprint == model[1]
    semantic.share_host_files(None)
    assert semantic._weights_home is None


def test_only_this_weights_file_and_the_newest_other_are_kept(tmp_path, model) -> None:
    data, sha, recipe = model
    for other in ("1" * 64, "2" * 64):
        mapped_weights(tmp_path, data, other, recipe)
    mapped_weights(tmp_path, data, sha, recipe)
    kept = sorted(path.name for path in tmp_path.iterdir())
    newest_other = key_name(weights_key("2" * 64, recipe))
    assert kept == sorted([_weights_file(tmp_path, model).parent.name, newest_other])
