"""What a URL written in an abstract leads to, and which of them lead to code.

Authors write links every way: bare, in Markdown or ``\\url{}``, without a scheme, at the end
of a sentence, as a clone URL. The parser makes each one the same link, and the corpus keeps
the links to code and project websites for the card's "Code:" and "Website:" line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

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
