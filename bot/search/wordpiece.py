"""BERT's uncased WordPiece tokenizer over the model's own vocabulary, in plain Python.

The embedding model needs token ids exactly as its training tokenizer made them, and the
``tokenizers`` package would add about 45 MB to the install for this one job. The steps are
those of Hugging Face's ``BertNormalizer`` (clean, space out CJK ideographs, strip accents,
lowercase), ``BertPreTokenizer`` (split on whitespace and around punctuation) and
``WordPiece`` (greedy longest match, ``##`` continuations, ``[UNK]`` for a word it cannot
cover or longer than 100 characters); the tests compare its ids with that tokenizer's.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

VOCAB_PATH = Path(__file__).resolve().parent / "data" / "vocab.txt"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
MAX_WORD_CHARS = 100
CONTINUATION = "##"

_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


class _Table(dict):
    """A ``str.translate`` table filled in as characters are met: the classes below are
    Unicode-wide, and a table of every code point would take a second to build."""

    def __init__(self, rule: Callable[[str], str]) -> None:
        super().__init__()
        self._rule = rule

    def __missing__(self, code: int) -> str:
        value = self[code] = self._rule(chr(code))
        return value


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def _cleaned(char: str) -> str:
    """Controls and NUL go, whitespace becomes a space, CJK ideographs become words."""
    if char in "\t\n\r":
        return " "
    if char in "\x00\ufffd" or unicodedata.category(char).startswith("C"):
        return ""
    if char.isspace():
        return " "
    return f" {char} " if _is_cjk(char) else char


def _unaccented(char: str) -> str:
    return "" if unicodedata.category(char) == "Mn" else char


def _split_off(char: str) -> str:
    """ASCII symbols count as punctuation too (``$``, ``+``, ``^``), as in BERT."""
    ascii_punctuation = char.isascii() and char.isprintable() and not char.isalnum()
    if (ascii_punctuation and char != " ") or unicodedata.category(char).startswith("P"):
        return f" {char} "
    return char


_CLEAN = _Table(_cleaned)
_UNACCENT = _Table(_unaccented)
_SPLIT = _Table(_split_off)


class WordPiece:
    """Text → the model's input ids: ``[CLS]``, word pieces, ``[SEP]``, at most ``max_tokens``."""

    def __init__(self, vocabulary: dict[str, int], max_tokens: int) -> None:
        self._ids = vocabulary
        self._unknown = vocabulary["[UNK]"]
        self._first = vocabulary["[CLS]"]
        self._last = vocabulary["[SEP]"]
        self._max_tokens = max_tokens
        self.pieces = lru_cache(maxsize=1 << 16)(self._pieces)

    @classmethod
    def load(cls, max_tokens: int, path: Path = VOCAB_PATH) -> WordPiece:
        """The vocabulary shipped with the bot, refused if it is not the model's own."""
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != VOCAB_SHA256:
            raise ValueError(f"{path}: sha256 {digest}, expected {VOCAB_SHA256}")
        words = data.decode("utf-8").split("\n")
        if words and not words[-1]:
            words.pop()
        return cls({word: number for number, word in enumerate(words)}, max_tokens)

    def words(self, text: str) -> list[str]:
        """The normalised words and punctuation marks WordPiece is applied to."""
        text = text.translate(_CLEAN)
        if not text.isascii():
            text = unicodedata.normalize("NFD", text).translate(_UNACCENT)
        # Per character, as the reference does: str.lower() would make a final sigma.
        text = text.lower() if "\u03a3" not in text else "".join(c.lower() for c in text)
        return text.translate(_SPLIT).split()

    def _pieces(self, word: str) -> tuple[int, ...]:
        """The ids of one word's pieces, longest first match, or ``[UNK]`` for all of it."""
        if len(word) > MAX_WORD_CHARS:
            return (self._unknown,)
        ids: list[int] = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
                found = self._ids.get(piece)
                if found is not None:
                    ids.append(found)
                    start = end
                    break
            else:
                return (self._unknown,)
        return tuple(ids)

    def encode(self, text: str) -> list[int]:
        """The input ids of ``text``, cut to ``max_tokens`` with ``[CLS]`` and ``[SEP]``."""
        room = self._max_tokens - 2
        ids = [self._first]
        for word in self.words(text):
            ids.extend(self.pieces(word))
            if len(ids) > room:
                del ids[room + 1 :]
                break
        ids.append(self._last)
        return ids
