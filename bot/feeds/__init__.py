"""New papers as they appear: arXiv's announcements and OpenReview's venues, fetched, turned
into ``FeedEntry`` records, embedded once and stored for every process.

One small adapter per source, each on its maintained client, which only ever parses: the
bytes are fetched here (``http``), with a timeout, a descriptive User-Agent and the one pace
(``pacing``) every request waits its turn in, so no client sleeps or retries on its own:
``arxiv_rss`` (feedparser), ``arxiv_oai`` (sickle), ``arxiv_api`` (feedparser on the API's
Atom), ``openreview`` (openreview-py's ``Note``). ``ingest`` is the run (claim the source and
period, fetch since the watermark, embed what changed, upsert, advance the watermark),
``timing`` when runs happen, ``cli`` is ``paperbot ingest``. With no feed configured none of
it runs, and the bot makes no request at all. Third-party clients stay in this package.
"""
