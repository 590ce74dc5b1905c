"""Papers: the immutable ``Paper`` record and everything that turns files into papers.

Owns corpus loading (the seed files and the catalogue, bundled as the ``seeds`` data package),
the one OpenReview-link rule (``openreview``), the LaTeX/Markdown parser (``markup``) and the
plain text made from it (``plain``), the mending of abstracts the sources damaged
(``repair``), acronym matching, and the card summaries (display title,
TL;DR). Knows nothing about search, Slack, mrkdwn, the store or the digest: the mrkdwn of a
title or abstract is written in ``bot.render``. Imports only its own modules and
``bot.settings`` (a corpus that cannot load is a start-up error).
"""
