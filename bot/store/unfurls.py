"""A cache of rendered link previews, keyed by a hash of the link as Slack sent it and of the
version of the renderer that drew it."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from sqlalchemy import select

from bot.store.part import Part, bounded
from bot.store.tables import unfurls

UNFURL_RETENTION = timedelta(days=1)
"""A rendered unfurl is reused for a day: a link pasted in ten channels is rendered once,
and a paper's card changes rarely enough that a day-old one is still right."""


class Unfurls(Part):
    @bounded
    def cached_unfurl(self, link: str, render_version: int) -> str | None:
        """The payload rendered for ``link`` by this ``render_version`` within the last day,
        if any: a preview drawn before a change to the card is not shown after it."""
        with self._database.connect() as connection:
            return connection.execute(
                select(unfurls.c.payload).where(
                    unfurls.c.link_key == _link_key(link, render_version),
                    unfurls.c.rendered_at >= self._database.now() - UNFURL_RETENTION,
                )
            ).scalar()

    @bounded
    def cache_unfurl(self, link: str, render_version: int, paper_id: str, payload: str) -> None:
        """Keep an unfurl rendered by ``render_version`` for a day; expired ones are dropped
        on the way (those of an older version go with them within the day)."""
        now = self._database.now()
        values = {"paper_id": paper_id, "payload": payload, "rendered_at": now}
        with self._database.begin() as connection:
            connection.execute(
                self._database.insert(unfurls)
                .values(link_key=_link_key(link, render_version), **values)
                .on_conflict_do_update(index_elements=["link_key"], set_=values)
            )
            connection.execute(
                unfurls.delete().where(unfurls.c.rendered_at < now - UNFURL_RETENTION)
            )


def _link_key(link: str, render_version: int) -> str:
    """Links can be longer than an index allows; their hash is not. The version goes into
    the hash, so a new renderer needs no migration: old rows are simply never asked for."""
    return hashlib.sha256(f"v{render_version} {link}".encode()).hexdigest()
