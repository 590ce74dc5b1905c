"""A cache of rendered link previews, keyed by a hash of the link as Slack sent it."""

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
    def cached_unfurl(self, link: str) -> str | None:
        """The payload rendered for ``link`` within the last day, if any."""
        with self._database.connect() as connection:
            return connection.execute(
                select(unfurls.c.payload).where(
                    unfurls.c.link_key == _link_key(link),
                    unfurls.c.rendered_at >= self._database.now() - UNFURL_RETENTION,
                )
            ).scalar()

    @bounded
    def cache_unfurl(self, link: str, paper_id: str, payload: str) -> None:
        """Keep a rendered unfurl for a day; expired ones are dropped on the way."""
        now = self._database.now()
        values = {"paper_id": paper_id, "payload": payload, "rendered_at": now}
        with self._database.begin() as connection:
            connection.execute(
                self._database.insert(unfurls)
                .values(link_key=_link_key(link), **values)
                .on_conflict_do_update(index_elements=["link_key"], set_=values)
            )
            connection.execute(
                unfurls.delete().where(unfurls.c.rendered_at < now - UNFURL_RETENTION)
            )


def _link_key(link: str) -> str:
    """Links can be longer than an index allows; their hash is not."""
    return hashlib.sha256(link.encode("utf-8")).hexdigest()
