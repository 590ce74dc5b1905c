"""Write the model's graph with its weights taken out: ``bot/search/data/model_graph.onnx``
and, beside it, ``model_weights.json``, the recipe that makes them from the pinned model.

Run from the repository root with the test extra installed (it needs ``onnx``, which the bot
does not): ``python tools/model_graph.py``. ``tests/test_model_graph.py`` checks that the
files committed are what this writes.

Why: the pinned model stores each matrix as int8 with a scale per column, which ONNX Runtime
multiplies out to float32 when it loads the model, once per session. The bot runs two
sessions (``bot.search.embedding``), which would hold two copies of the 90 MB of float32
weights. Here each ``Cast(int8) * scale`` pair becomes a float32 weight of the same name that
the graph refers to in a file ``weights.bin``; the bot computes that file in memory from the
pinned model, with the same multiplication, and hands both sessions the same arrays."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.search.embedding import (  # noqa: E402
    GRAPH_PATH,
    WEIGHTS_FILE,
    WEIGHTS_RECIPE_PATH,
    model_path,
)


class Unexpected(SystemExit):
    """The pinned model is not laid out as this tool expects: look before writing anything."""


def _initializer(constants: dict[str, TensorProto], name: str, kind: int) -> TensorProto:
    tensor = constants.get(name)
    if tensor is None or tensor.data_type != kind or not tensor.raw_data:
        raise Unexpected(f"{name}: not a stored {TensorProto.DataType.Name(kind)} tensor")
    return tensor


def split(source: Path) -> tuple[onnx.ModelProto, list[dict[str, object]]]:
    """The graph with each ``Mul(Cast(int8 weights), float32 scales)`` replaced by a float32
    weight of the Mul's name in ``WEIGHTS_FILE``, and the recipe of that file."""
    model = onnx.load(str(source))
    graph = model.graph
    file_bytes = source.read_bytes()
    constants = {tensor.name: tensor for tensor in graph.initializer}
    made_by = {output: node for node in graph.node for output in node.output}
    readers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    recipe, dropped, declared, end = [], set(), [], 0
    for node in graph.node:
        cast = made_by.get(node.input[0]) if node.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in constants:
            continue
        to = next(attribute.i for attribute in cast.attribute if attribute.name == "to")
        if to != TensorProto.FLOAT or readers[cast.output[0]] != 1:
            raise Unexpected(f"{cast.name}: a Cast of weights that is not a float32 one's alone")
        weights = _initializer(constants, cast.input[0], TensorProto.INT8)
        scales = _initializer(constants, node.input[1], TensorProto.FLOAT)
        shape = list(weights.dims)
        if np.broadcast_shapes(tuple(shape), tuple(scales.dims)) != tuple(shape):
            raise Unexpected(f"{node.name}: scales of shape {list(scales.dims)} for {shape}")
        length = int(np.prod(shape)) * 4
        recipe.append(
            {
                "name": node.output[0],
                "shape": shape,
                "int8_at": file_bytes.index(weights.raw_data),
                "scales_at": file_bytes.index(scales.raw_data),
                "scales_shape": list(scales.dims),
                "at": end,
            }
        )
        tensor = TensorProto(name=node.output[0], data_type=TensorProto.FLOAT, dims=shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", WEIGHTS_FILE), ("offset", end), ("length", length)):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(value)
        declared.append(tensor)
        dropped.update((id(node), id(cast)))
        end += length
    kept = [node for node in graph.node if id(node) not in dropped]
    used = {name for node in kept for name in node.input}
    tensors = [tensor for tensor in graph.initializer if tensor.name in used] + declared
    del graph.node[:]
    graph.node.extend(kept)
    del graph.initializer[:]
    graph.initializer.extend(tensors)
    model.producer_name = "paperbot tools/model_graph.py"
    return model, recipe


def rendered(source: Path) -> dict[Path, bytes]:
    """The files this writes, made from the pinned model at ``source``."""
    model, recipe = split(source)
    return {
        GRAPH_PATH: model.SerializeToString(deterministic=True),
        WEIGHTS_RECIPE_PATH: (json.dumps(recipe, indent=1) + "\n").encode("utf-8"),
    }


def main() -> int:
    for path, content in rendered(model_path()).items():
        path.write_bytes(content)
        print(f"wrote {path.relative_to(ROOT)}: {len(content):,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
