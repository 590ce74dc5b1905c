"""The message value every renderer returns and every sender accepts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Message:
    """A Slack message: ``text`` is the plain fallback (notifications, screen readers),
    ``blocks`` the Block Kit layout as JSON-ready dicts."""

    text: str
    blocks: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def as_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``chat.postMessage`` and friends, or for ``respond``.

        Link previews are off: every message is a card that already shows its papers, so a
        preview of the OpenReview page would only repeat it, larger. A message whose link is
        the point (none so far) would ask for them explicitly."""
        return {
            "text": self.text,
            "blocks": list(self.blocks),
            "unfurl_links": False,
            "unfurl_media": False,
        }
