"""What a button carries: the one codec for button values.

Render writes values with the encoders here and handlers read them back with the decoders,
which hand answers typed values; nothing else knows a value's separators. A value holds at
most 2,000 characters, so a long query travels as a remembered key. Anyone can forge a
value, so decoding never raises: a value the bot did not write decodes to ``None`` (or, for
the App Home's numbers, to the first page; for **Abstract** and the Save family, to the paper
alone when only the page part is unreadable).

Values already posted in Slack (private lists, thread replies, the daily post) must keep
decoding, so these formats never change; ``tests/test_buttons.py`` holds one of each:

- a page (**Next**, **Previous**, **Back to results**): ``kind:offset:key``, see ``PageCursor``;
- **Abstract**, the Save family (**Save**, **Saved ✓**, **Undo**, **Save again**) and the
  Not relevant family (**Not relevant** and its **Undo**): the paper id, then a space and the
  private page it was on, if any (``PaperButton``);
- **Post in thread**: the remembered text's key, channel and thread ts, space-separated
  (``RelatedTarget``; the same string is the key of a related-papers page);
- the App Home's **Remove**: the paper id, a space and the list offset; its For you cards'
  **Save**, **Not relevant** and **Undo**: the paper id, a space and the For you offset
  (``home_paper_value``); its **Previous** and **Next** (of either list): the offset alone;
  each may go on with the other list's place (``HomePlaces``);
- **Share**, **More like this** and the App Home's **Abstract**: the paper id alone, read as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MAX_COUNT_DIGITS = 9
_FIELD_SEPARATOR = " "
"""Between the parts of a value: paper ids, keys, channel ids and ts have no spaces."""
_CURSOR_SEPARATOR = ":"


def ascii_count(text: str) -> int | None:
    """A non-negative whole number written in ASCII digits, as the bot writes them into button
    values, or None. ``str.isdigit`` would also pass ``²`` (which ``int`` rejects) and other
    scripts' digits, so a forged value could crash a click instead of being ignored."""
    if not (0 < len(text) <= MAX_COUNT_DIGITS and text.isascii() and text.isdigit()):
        return None
    return int(text)


class PageKind(StrEnum):
    """What a private page shows, and so what its cursor's key names."""

    QUERY = "q"
    """A remembered ``/paper`` search; the key is the store's key for the query."""
    SIMILAR = "s"
    """A paper's neighbours; the key is the paper id."""
    PAPER = "p"
    """A single paper's card; the key is the paper id."""
    ABSTRACT = "a"
    """A private abstract; the key is its **Abstract** button (a ``PaperButton``)."""
    NOTICE = "n"
    """The private "Saved ✓ · Undo" notice about one paper; the key is the paper id."""
    SAVED = "r"
    """A page of the clicker's reading list; the key is a placeholder (the clicker is known)."""
    RELATED = "t"
    """Papers related to a message (the shortcut); the key is a ``RelatedTarget``."""
    FOR_YOU = "f"
    """The clicker's For you suggestions; the key is a placeholder (the clicker is known)."""
    NEW = "w"
    """A ``/paper new`` list; the key is the store's key for what it lists (its day, topic
    and whose engagement ranks it)."""


_PAGE_KINDS = frozenset(kind.value for kind in PageKind)


@dataclass(frozen=True)
class PageCursor:
    """A private page a button leads to (**Next**, **Previous**, **Back to results**), or the
    page a card's button was clicked on: what the page shows, and an offset.

    The key is decoded with the cursor: an abstract's page is keyed by its ``PaperButton``,
    a related-papers page by its ``RelatedTarget``, every other page by a plain string."""

    kind: PageKind
    key: PageKey
    offset: int = 0

    def encode(self) -> str:
        key = self.key if isinstance(self.key, str) else self.key.encode()
        return f"{self.kind}{_CURSOR_SEPARATOR}{self.offset}{_CURSOR_SEPARATOR}{key}"

    @classmethod
    def decode(cls, value: str) -> PageCursor | None:
        kind, _, rest = value.partition(_CURSOR_SEPARATOR)
        offset, _, key = rest.partition(_CURSOR_SEPARATOR)
        count = ascii_count(offset)
        if kind not in _PAGE_KINDS or count is None or not key:
            return None
        page_kind = PageKind(kind)
        typed_key = _decode_key(page_kind, key)
        return cls(page_kind, typed_key, count) if typed_key is not None else None


@dataclass(frozen=True)
class PaperButton:
    """A click on **Abstract** or the Save family: the paper, and the private page the button
    was on (``None`` on a message everyone sees)."""

    paper_id: str
    page: PageCursor | None = None
    page_unreadable: bool = False
    """The value named a private page that does not decode (forged or mangled). The click
    still acts on its paper, as it always has: a Save saves, an Abstract shows the abstract;
    only the way back to the page is lost."""

    @property
    def on_private_page(self) -> bool:
        """Whether the button sat on a private page, readable or not (its answer replaces
        that page rather than arriving as a new private message)."""
        return self.page is not None or self.page_unreadable

    def encode(self) -> str:
        """The paper, then the private page it was clicked on (the list to return to, or the
        page to redraw with the new button)."""
        if self.page is None:
            return self.paper_id
        return f"{self.paper_id}{_FIELD_SEPARATOR}{self.page.encode()}"

    @classmethod
    def decode(cls, value: str) -> PaperButton | None:
        paper_id, _, page = value.partition(_FIELD_SEPARATOR)
        if not paper_id:
            return None
        cursor = PageCursor.decode(page) if page else None
        return cls(paper_id, cursor, page_unreadable=bool(page) and cursor is None)


@dataclass(frozen=True)
class RelatedTarget:
    """Papers related to a message: the remembered text's key and, where the bot may post,
    the channel and thread that **Post in thread** posts them in."""

    text_key: str
    post_to: tuple[str, str] | None = None

    def encode(self) -> str:
        return _FIELD_SEPARATOR.join((self.text_key, *(self.post_to or ())))

    @classmethod
    def decode(cls, value: str) -> RelatedTarget | None:
        text_key, *post_to = value.split(_FIELD_SEPARATOR)
        if not text_key or len(post_to) not in {0, 2}:
            return None
        return cls(text_key, (post_to[0], post_to[1]) if post_to else None)


PageKey = str | PaperButton | RelatedTarget
"""What a ``PageCursor`` names: see ``PageKind`` for which kind of page has which key."""


def _decode_key(kind: PageKind, key: str) -> PageKey | None:
    if kind is PageKind.ABSTRACT:
        return PaperButton.decode(key)
    if kind is PageKind.RELATED:
        return RelatedTarget.decode(key)
    return key


@dataclass(frozen=True)
class HomePlaces:
    """Where the App Home's two lists are: each button in one list carries the other's place,
    so a click in one never sends the other back to its first page (nor drops its **Undo**).

    Encoded as this list's offset, the other list's offset, and on the reading list's buttons
    the paper For you last hid (its **Undo**), space-separated; a value posted before the
    other list's place travelled (the offset alone) decodes with the other on its first page.
    """

    reading_list: int = 0
    for_you: int = 0
    hidden: str | None = None
    """The paper the last **Not relevant** in For you hid, offered back with **Undo**."""

    def encode(self, *, for_you: bool) -> str:
        """From a button of For you (``for_you``) or of the reading list."""
        if for_you:
            return f"{self.for_you}{_FIELD_SEPARATOR}{self.reading_list}"
        parts = [str(self.reading_list), str(self.for_you), *([self.hidden] if self.hidden else [])]
        return _FIELD_SEPARATOR.join(parts)

    @classmethod
    def decode(cls, value: str, *, for_you: bool) -> HomePlaces:
        """A forged offset shows its list's first page; a forged paper id offers an **Undo**
        that does nothing, as a forged **Not relevant** value would."""
        this, _, rest = value.partition(_FIELD_SEPARATOR)
        other, _, hidden = rest.partition(_FIELD_SEPARATOR)
        here, there = ascii_count(this) or 0, ascii_count(other) or 0
        if for_you:
            return cls(reading_list=there, for_you=here)
        return cls(reading_list=here, for_you=there, hidden=hidden or None)


FIRST_PAGES = HomePlaces()
"""Both lists on their first page, nothing just hidden: where the tab opens."""


def home_paper_value(paper_id: str, places: HomePlaces, *, for_you: bool) -> str:
    """A paper's button in the App Home (**Remove**, and **Save**, **Not relevant** and
    **Undo** on a For you card, ``for_you``): the paper and where both lists are."""
    return f"{paper_id}{_FIELD_SEPARATOR}{places.encode(for_you=for_you)}"


def decode_home_paper(value: str, *, for_you: bool) -> tuple[str, HomePlaces]:
    """``(paper id, both lists' places)`` from a paper's App Home button."""
    paper_id, _, places = value.partition(_FIELD_SEPARATOR)
    return paper_id, HomePlaces.decode(places, for_you=for_you)


def home_page_value(places: HomePlaces, *, for_you: bool) -> str:
    """The App Home's **Previous** and **Next** (of For you, ``for_you``, or of the reading
    list): both lists' places once the click is made."""
    return places.encode(for_you=for_you)


def decode_home_page(value: str, *, for_you: bool) -> HomePlaces:
    """Both lists' places from an App Home page button."""
    return HomePlaces.decode(value, for_you=for_you)
