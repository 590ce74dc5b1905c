"""The WordPiece tokenizer gives the model the ids its own tokenizer would.

``data/wordpiece_reference.jsonl`` holds texts with the ids Hugging Face's ``tokenizers``
(0.23.3, ``BertWordPieceTokenizer`` over the same ``vocab.txt``, lowercase, truncation at 256)
gave them, generated once so the tests need no 45 MB package: 40 catalogue papers' embedding
texts and the hard cases (accents, final sigma, CJK, controls, zero-width and odd spaces,
LaTeX punctuation, a word over 100 characters, a long unknown word).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bot.search.embedding import MAX_TOKENS
from bot.search.wordpiece import VOCAB_PATH, VOCAB_SHA256, WordPiece

REFERENCE = Path(__file__).parent / "data" / "wordpiece_reference.jsonl"


@pytest.fixture(scope="module")
def wordpiece() -> WordPiece:
    return WordPiece.load(MAX_TOKENS)


def _reference() -> list[dict]:
    lines = REFERENCE.read_text(encoding="utf-8").split("\n")  # not splitlines(): U+2028
    return [json.loads(line) for line in lines if line]


def test_ids_equal_the_reference_tokenizers(wordpiece: WordPiece) -> None:
    cases = _reference()
    assert len(cases) == 46
    for case in cases:
        assert wordpiece.encode(case["text"]) == case["ids"], case["text"][:80]


def test_long_texts_are_cut_to_the_model_limit_with_their_end_marker(
    wordpiece: WordPiece,
) -> None:
    ids = wordpiece.encode("graph " * 1000)
    assert len(ids) == MAX_TOKENS
    assert ids[0] == 101 and ids[-1] == 102  # [CLS] ... [SEP]


def test_words_split_into_known_pieces_or_unknown_as_a_whole(wordpiece: WordPiece) -> None:
    assert wordpiece.words("Sparsifying GNNs, naïvely!") == [
        "sparsifying",
        "gnns",
        ",",
        "naively",
        "!",
    ]
    assert wordpiece.encode("") == [101, 102]
    assert wordpiece.encode("x" * 101) == [101, 100, 102]  # over 100 characters: [UNK]


def test_the_committed_vocabulary_is_the_models(tmp_path: Path) -> None:
    assert hashlib.sha256(VOCAB_PATH.read_bytes()).hexdigest() == VOCAB_SHA256
    altered = tmp_path / "vocab.txt"
    altered.write_bytes(VOCAB_PATH.read_bytes() + b"extra\n")
    with pytest.raises(ValueError, match="sha256"):
        WordPiece.load(MAX_TOKENS, altered)
