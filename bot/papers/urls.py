"""Links: what a URL written in an abstract leads to, which paper a pasted link names, and
the links to a paper's pages.

Authors write links every way: bare, in Markdown or ``\\url{}``, without a scheme, at the end
of a sentence, as a clone URL. The parser makes each one the same link, and the corpus keeps
the links to code and project websites for the card's "Code:" and "Website:" line.

A link pasted in Slack or typed into ``/paper`` names a paper by its OpenReview forum (the one
rule is ``bot.papers.openreview``'s) or its arXiv abstract or PDF (``linked_paper_id``); the
feeds and the cards build a paper's arXiv and OpenReview pages here, so a link the bot writes
is one it reads back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from bot.papers.openreview import link_parts, openreview_link_id

_CJK_PUNCTUATION = "\u3001\u3002\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f"
"""The ideographic comma and full stop, and full-width ! ( ) , : ; ?: no URL has them, and a
sentence in Chinese or Japanese goes on with them, without a space, right after a link."""
URL_BODY = r"https?://[^\s<>\[\](){}\"'`|\\^$*" + _CJK_PUNCTUATION + "]+"
BARE_URL = re.compile(URL_BODY)
TRAILING_URL_PUNCTUATION = ".,;:!?'\"*_~"


# Characters that would end a Slack link early or read as markup, percent-encoded.
_URL_UNSAFE = str.maketrans({char: f"%{ord(char):02X}" for char in "|<>$*\\ "})
_SCHEMELESS_URL = re.compile(r"(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?", re.IGNORECASE)


def link_url(target: str) -> str | None:
    """The http(s) URL a link's target leads to, or None when it is not a URL.

    The URL loses the sentence's punctuation, a clone suffix (``RiemGCP.git.`` → ``RiemGCP``)
    and a trailing slash after a path, so the same repository is one link however written.
    """
    url = _trimmed_url(target)
    if not url.startswith(("http://", "https://")):
        if not _SCHEMELESS_URL.fullmatch(url):
            return None
        url = "https://" + url
    return _without_path_slash(url)


def _trimmed_url(target: str) -> str:
    """``target`` without the sentence's punctuation or a clone suffix, escaped for Slack."""
    url = target.strip().rstrip(TRAILING_URL_PUNCTUATION).removesuffix(".git")
    return url.translate(_URL_UNSAFE)


def _without_path_slash(url: str) -> str:
    if not url.endswith("/"):  # nothing to strip, so no need to parse it
        return url
    return url.rstrip("/") if urlsplit(url).path not in ("", "/") else url


# Where code, models and data sets are hosted; an anonymous.4open.science link is the
# repository as reviewers saw it, and hf.co is Hugging Face's short domain.
_CODE_HOSTS = (
    *("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "gitee.com"),
    *("huggingface.co", "hf.co", "anonymous.4open.science", "pypi.org"),
)
_REFERENCE_HOSTS = ("arxiv.org", "doi.org", "openreview.net", "aclanthology.org", "wikipedia.org")


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


def is_code_repository(url: str) -> bool:
    """Whether ``url`` is on a code host (a repository, a model or data set), rather than a
    project's own website (``t2i-text-loc.github.io`` is a website GitHub serves)."""
    host = _host(url)
    return host in _CODE_HOSTS or any(host.endswith("." + name) for name in _CODE_HOSTS)


def extract_code_urls(links: Iterable[str]) -> tuple[str, ...]:
    """The links that lead to code or a project's website, rather than to other papers.

    Code hosts come first because a reader asking "where is the code" wants the repository
    before the website; ``is_code_repository`` tells the two apart for the card's labels.
    """
    code: list[str] = []
    pages: list[str] = []
    for link in links:
        host = _host(link)
        if is_code_repository(link):
            code.append(link)
        elif host and not host.endswith(_REFERENCE_HOSTS):
            pages.append(link)
    return tuple(code + pages)


# --- the pages of a paper, and which paper a link names --------------------------------------

ARXIV_SITE = "https://arxiv.org"
OPENREVIEW_SITE = "https://openreview.net"
PAPER_DOMAINS = ("openreview.net", "arxiv.org")
"""The sites whose links name papers: the app's unfurl domains (``manifest.json``), which
Slack matches with their subdomains (``www.``, ``export.arxiv.org``)."""
ARXIV_HOSTS = frozenset({"arxiv.org", "www.arxiv.org", "export.arxiv.org"})
ARXIV_PREFIX = "arxiv:"
"""What a preprint's paper id starts with (``arxiv:2501.01234``): OpenReview's ids never do."""
_ARXIV_PATH = re.compile(
    r"/(?:abs|pdf|html)/"
    r"(?:(?P<new>\d{4}\.\d{4,5})|(?P<archive>[a-z-]+)(?:\.[a-z-]+)?/(?P<number>\d{7}))"
    r"(?:v\d+)?(?:\.pdf)?/?",
    re.IGNORECASE,
)
"""An abstract, PDF or HTML page of a new-style id (``2501.01234``) or an old one
(``cs/0112017``; ``math.GT/0309136`` is ``math/0309136`` with its subject class), any version."""


def arxiv_abstract_url(arxiv_id: str) -> str:
    return f"{ARXIV_SITE}/abs/{arxiv_id}"


def arxiv_pdf_url(arxiv_id: str, version: int | None) -> str:
    """The PDF of that version; without one, arXiv's latest."""
    return f"{ARXIV_SITE}/pdf/{arxiv_id}" + (f"v{version}" if version else "")


def openreview_forum_url(forum: str) -> str:
    return f"{OPENREVIEW_SITE}/forum?id={forum}"


def openreview_pdf_url(forum: str) -> str:
    return f"{OPENREVIEW_SITE}/pdf?id={forum}"


def arxiv_paper_id(arxiv_id: str) -> str:
    """The id of the paper a feed brought from arXiv, and what an arXiv link names."""
    return f"{ARXIV_PREFIX}{arxiv_id}"


def is_paper_site(url: str) -> bool:
    """Whether ``url`` is on a site whose links may name papers (``PAPER_DOMAINS``)."""
    host = (urlsplit(url).hostname or "").lower()
    return any(host == domain or host.endswith("." + domain) for domain in PAPER_DOMAINS)


def arxiv_link_id(link: str) -> str | None:
    """The arXiv id (without its version) of a link to a paper's abstract, PDF or HTML page
    on arxiv.org (``www.`` and ``export.`` too), in Slack's ``<url|label>`` or not; None for
    any other link, or text that is no link."""
    parts = link_parts(link, ARXIV_HOSTS)
    found = None if parts is None else _ARXIV_PATH.fullmatch(parts.path)
    if found is None:
        return None
    if found["new"]:
        return found["new"]
    return f"{found['archive'].lower()}/{found['number']}"


def linked_paper_id(link: str) -> str | None:
    """The paper id a link names: an OpenReview forum id, or ``arxiv:ID`` for arXiv's pages."""
    if (forum := openreview_link_id(link)) is not None:
        return forum
    arxiv_id = arxiv_link_id(link)
    return None if arxiv_id is None else arxiv_paper_id(arxiv_id)
