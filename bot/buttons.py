"""What a button carries: the one codec for button values.

Render encodes, handlers decode; nothing else reads a value's separators. A value holds at
most 2,000 characters and anyone can forge one, so decoding never raises: a value the bot
did not write decodes to nothing, and the click is ignored or told its page expired.
"""

from __future__ import annotations

MAX_COUNT_DIGITS = 9


def ascii_count(text: str) -> int | None:
    """A non-negative whole number written in ASCII digits, as the bot writes them into button
    values, or None. ``str.isdigit`` would also pass ``²`` (which ``int`` rejects) and other
    scripts' digits, so a forged value could crash a click instead of being ignored."""
    if not (0 < len(text) <= MAX_COUNT_DIGITS and text.isascii() and text.isdigit()):
        return None
    return int(text)
