"""Turning the authors' mix of LaTeX, Markdown and Unicode into text people can read.

Abstracts and titles arrive as written for OpenReview: ``$8.67\\%\\sim 50.85\\%$``,
``\\textbf{…}``, ``**bold**``, ``[text](url)``. Every consumer needs two forms of the same
words — plain Unicode for the search index and TL;DRs, Slack mrkdwn for display — so the text
is parsed once into a small tree of nodes and rendered twice.

pylatexenc supplies the LaTeX-to-Unicode symbol knowledge, but only for the LaTeX fragments
themselves (math spans and unknown macros): fed a whole abstract it reads ``%`` as a comment
and drops the rest of the line, turns ``~`` into a space, and raises on some ``\\href``. Text
with no ``$`` or ``\\`` never reaches it, which also keeps the catalogue load fast.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pylatexenc import latexwalker
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)


def normalise_whitespace(text: str) -> str:
    """Collapse every whitespace run (newlines, tabs, NBSP) to one space and strip the ends.

    Most text arrives already normalised, and every whitespace character but the ASCII space
    is unprintable, so a cheap scan can usually return the text as it is (loading a large
    corpus normalises each abstract several times).
    """
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def match_key(text: str) -> str:
    """The form two copies of the same text share: NFKC, whitespace collapsed.

    Ids are hashed from it and seed abstracts join catalogue records on it, so it must not
    change between releases: an id built from it is how the team refers to a paper.
    """
    return normalise_whitespace(unicodedata.normalize("NFKC", text))


def escape_mrkdwn(text: str) -> str:
    """Escape the three characters Slack reserves for its own markup (links, mentions)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape_mrkdwn(text: str) -> str:
    """Undo ``escape_mrkdwn`` (and Slack's own escaping of what a person typed)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


_ASTERISK_OPERATOR = "\u2217"
_PAIRED_MARKS = {
    "_": re.compile(r"(?<![^\W_])_|_(?![^\W_])"),  # at a word's edge: snake_case never opens
    "~": re.compile("~"),
    "`": re.compile("`"),
}
_LOOK_ALIKES = {"_": "\u02cd", "~": "\u223c", "`": "\u02cb"}
"""Modifier letter low macron, tilde operator, modifier letter grave accent."""


def mrkdwn_literal(text: str) -> str:
    """Plain text to show verbatim in Slack: escaped, and with the characters of Slack's
    emphasis swapped for look-alikes, since Slack has no escape for them. Stars always
    (``Q*`` and ``Rodimus*`` in one list, or a typed ``author:*Jegelka*``, would bold the
    text between); ``_``, ``~`` and backticks only where two of them could pair into
    italics, strike-through or code, so ``snake_case`` and ``~5%`` stay as written."""
    text = text.replace("*", _ASTERISK_OPERATOR)
    for mark, edges in _PAIRED_MARKS.items():
        if mark in text and len(edges.findall(text)) > 1:
            text = edges.sub(_LOOK_ALIKES[mark], text)
    return escape_mrkdwn(text)


@dataclass(frozen=True)
class CleanText:
    """One text in its two readable forms, plus the URLs it mentions (in order, unique).

    ``display`` is rendered on first use: the corpus needs every abstract's plain form for
    the index, but the Slack form only of the few papers it shows.
    """

    plain: str
    links: tuple[str, ...]
    _render_display: Callable[[], str] = field(repr=False, compare=False)

    @functools.cached_property
    def display(self) -> str:
        return self._render_display()


# --- the parse tree -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Styled:
    """``style`` is ``"b"`` (bold), ``"i"`` (italic), ``"code"`` or ``""`` (no formatting)."""

    style: str
    children: tuple[_Node, ...]


@dataclass(frozen=True)
class _Link:
    url: str
    children: tuple[_Node, ...]


@dataclass(frozen=True)
class _Script:
    """A math super- (``^``) or subscript (``_``), rendered with Unicode script letters."""

    kind: str
    children: tuple[_Node, ...]


_Node = _Text | _Styled | _Link | _Script

# --- LaTeX ----------------------------------------------------------------------------------

_FORMAT_MACROS = {
    "textbf": "b",
    "mathbf": "b",
    "boldsymbol": "b",
    "bm": "b",
    "emph": "i",
    "textit": "i",
    "mathit": "i",
    "textsl": "i",
    "texttt": "code",
    "mathtt": "code",
    "text": "",
    "textrm": "",
    "textsf": "",
    "textsc": "",
    "textnormal": "",
    "textup": "",
    "mathrm": "",
    "mathsf": "",
    "mathnormal": "",
    "operatorname": "",
    "underline": "",
    "uline": "",
    "mbox": "",
    "hbox": "",
    "title": "",
    "section": "",
    "subsection": "",
    "paragraph": "",
}


# A citation key ("arvind2024hierarchy") means nothing to a reader; pylatexenc's "<cit.>" less.
_CITATIONS = ("cite", "citet", "citep", "citealp", "citealt", "citeauthor", "citeyear", "ref")


def _latex_converter() -> LatexNodes2Text:
    """pylatexenc with the macros it would otherwise lose or render unreadably.

    ``\\texttt`` comes out empty and ``\\mathsf{LSI}`` as mathematical sans-serif letters that
    neither search nor most fonts handle; keep their argument as plain text instead.
    """
    db = get_default_latex_context_db()
    db.add_context_category(
        "paperbot",
        prepend=True,
        macros=[MacroTextSpec(name, simplify_repl="%s") for name in _FORMAT_MACROS]
        + [MacroTextSpec(name, simplify_repl="") for name in _CITATIONS]
        + [MacroTextSpec("|", simplify_repl="‖"), MacroTextSpec("\\", simplify_repl=" ")],
    )
    return LatexNodes2Text(
        latex_context=db, math_mode="text", strict_latex_spaces="based-on-source"
    )


_LATEX = _latex_converter()
# pylatexenc rebuilds its parser's macro table on every call unless handed one.
_WALKER_CONTEXT = latexwalker.get_default_latex_context_db()
# pylatexenc logs a warning for every malformed fragment (``\\frac`` without arguments); the
# text still comes out, so those warnings are noise in the bot's log.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)
_LATEX_DB = get_default_latex_context_db()


def _latex_to_unicode(fragment: str) -> str:
    """Unicode for a LaTeX fragment; on any pylatexenc failure, the fragment minus its markup.

    Losing the symbols is acceptable, losing the words is not.
    """
    fragment = _UNKNOWN_MACRO.sub(_unknown_macro, _FRACTION_VARIANTS.sub(r"\\frac", fragment))
    try:
        text = _LATEX.latex_to_text(fragment, latex_context=_WALKER_CONTEXT)
    except Exception:
        text = _MARKUP.sub(" ", fragment)
    if "%s" in text:  # pylatexenc could not find a macro's arguments (``\\frac23``)
        text = _MARKUP.sub(" ", fragment)
    return text.replace("\\", "")


_FRACTION_VARIANTS = re.compile(r"\\[td]frac(?![a-zA-Z])")
_MARKUP = re.compile(r"\\[a-zA-Z]+\*?|[\\{}$]")
_UNKNOWN_MACRO = re.compile(r"\\([a-zA-Z]+)(\s*\{(?!\s*\}))?")
# Shorthands authors define in their own preambles, and symbols pylatexenc lacks.
_SHORTHANDS = {
    "R": "\u211d",
    "N": "\u2115",
    "Z": "\u2124",
    "Q": "\u211a",
    "C": "\u2102",
    "E": "\U0001d53c",
    "eps": "\u03b5",
    "lor": "\u2228",
    "land": "\u2227",
    "lnot": "\u00ac",
}
# Sizing, spacing and old-style font switches: they carry no words, so they may vanish.
_SILENT_MACROS = frozenset(
    (
        *("left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl"),
        *("Bigr", "biggl", "biggr", "Biggl", "Biggr", "displaystyle", "textstyle"),
        *("scriptstyle", "limits", "nolimits", "quad", "qquad", "nonumber"),
        *("cal", "bf", "it", "rm", "sf", "tt", "sc", "em"),
    )
)


@functools.cache
def _is_known_macro(name: str) -> bool:
    return name in _FORMAT_MACROS or _LATEX_DB.get_macro_spec(name) is not None


def _unknown_macro(match: re.Match[str]) -> str:
    """A macro pylatexenc does not know would vanish with its name; keep what it says.

    ``\\bv{A}`` (an author's own formatting macro) becomes its argument, ``\\R`` the reals
    and ``\\ours`` the word "ours", so no word of the abstract is lost.
    """
    name, brace = match.group(1), match.group(2)
    if name in _SHORTHANDS:
        return _SHORTHANDS[name] + (brace or "")
    if _is_known_macro(name) or name in _SILENT_MACROS:
        return match.group(0)
    if brace:
        return "{"
    return name


_SUPERSCRIPTS = dict(
    zip(
        "0123456789+-=()niabcdefghjklmoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδφχθ*∗⋆′",  # noqa: RUF001
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᵠᵡᶿ***′",  # noqa: RUF001
        strict=True,
    )
)
_SUBSCRIPTS = dict(
    zip(
        "0123456789+-=()aehijklmnoprstuvxβγρφχ",  # noqa: RUF001
        "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ",
        strict=True,
    )
)


def _script_text(kind: str, content: str) -> str:
    """``x^2`` → ``x²`` when Unicode has every letter; else keep the TeX-like ``^(…)`` form."""
    table = _SUPERSCRIPTS if kind == "^" else _SUBSCRIPTS
    content = content.strip()
    if content and all(char in table for char in content):
        return "".join(table[char] for char in content)
    if len(content) > 1:
        return f"{kind}({content})"
    return f"{kind}{content}"


_LOPSIDED_OPERATOR = re.compile(
    r"(?<=\S)([\u00b1\u00d7\u2190-\u21ff\u2200-\u22ff])(?=\s)"
    r"|(?<=\s)([\u00b1\u00d7\u2190-\u21ff\u2200-\u22ff])(?=\S)"
)


def _space_operators(math: str) -> str:
    """Space an operator evenly when the source spaced one side only (``8.67\\%\\sim 50.85``).

    pylatexenc keeps the source's spacing; suffix operators (``2.62\\times``) stay attached.
    """
    return _LOPSIDED_OPERATOR.sub(lambda match: f" {match.group(0)} ", math)


def _closing_brace(text: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start``, or -1 when it is never closed."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def _brace_argument(text: str, start: int) -> tuple[str, int] | None:
    """The ``{…}`` group starting at ``start`` (after optional spaces) and the index past it."""
    index = start
    while index < len(text) and text[index] == " ":
        index += 1
    if index >= len(text) or text[index] != "{":
        return None
    end = _closing_brace(text, index)
    if end < 0:
        return None
    return text[index + 1 : end], end + 1


_MACRO_NAME = re.compile(r"\\([a-zA-Z]+)\*?|\\(.)", re.DOTALL)
_ESCAPED_CHARS = "%$&#_{}"
_ACCENTS = "'`^\"~=."


def _repair_double_backslashes(text: str) -> str:
    """Undo the seeds' doubled escapes without breaking real line breaks.

    The seed files write ``\\\\%`` and ``\\\\uparrow`` where LaTeX means ``\\%`` and
    ``\\uparrow``; read literally, ``\\\\`` is a line break and ``%`` starts a comment that
    eats the rest of the abstract. A doubled backslash before a known macro or an escapable
    character is therefore one backslash; any other ``\\\\`` is the line break it says.
    """

    def repair(match: re.Match[str]) -> str:
        following = match.group(1)
        if following[0] in _ESCAPED_CHARS:
            return "\\"
        if _is_known_macro(following):
            return "\\"
        return " "

    return re.sub(r"\\\\(?=([a-zA-Z]+|[%$&#_{}]))", repair, text).replace("\\\\", " ")


# --- the parser -----------------------------------------------------------------------------

_CJK_PUNCTUATION = "\u3001\u3002\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f"
"""The ideographic comma and full stop, and full-width ! ( ) , : ; ?: no URL has them, and a
sentence in Chinese or Japanese goes on with them, without a space, right after a link."""
_URL_BODY = r"https?://[^\s<>\[\](){}\"'`|\\^$*" + _CJK_PUNCTUATION + "]+"
_BARE_URL = re.compile(_URL_BODY)
_TOKEN_CHARS = "[`$*_{}~\\"
# Where a token could start: one of those characters, or the "h" of "http://" or "https://".
# Written to start with a character class, which the regex engine skips to, rather than as
# an alternation it would try at every character: an "h" is kept only if "ttp://" or
# "ttps://" follows it.
_TOKEN_START = re.compile("[" + re.escape(_TOKEN_CHARS) + "h](?:(?<=h)ttps?://)?(?<!h)")
_TEXT_TOKEN = re.compile(
    r"\[(?P<label>[^\]\n]*)\]\((?P<target>" + _URL_BODY + r")\)"
    r"|(?P<url>" + _URL_BODY + r")"
    r"|``(?P<quoted>[^`]*?)''"
    r"|\$\$(?P<display_math>[^$]+?)\$\$"
    r"|\$(?P<math>[^$]+?)\$"
    r"|\*\*(?P<bold>[^*\s](?:[^*]*?[^*\s])?)\*\*"
    r"|(?<![*\w])\*(?P<italic>[^*\s](?:[^*]*?[^*\s])?)\*(?![*\w])"
    r"|(?<![\w_])_(?P<underscored>[^_\s](?:[^_]*?[^_\s])?)_(?![\w_])"
    r"|`(?P<single_quoted>[^`'\n]+)'(?!\w)"
    r"|`(?P<code>[^`\n]+)`"
    r"|(?P<brace>[{}])"
    r"|(?P<tie>~)(?=\\)"
    r"|(?P<backslash>\\)"
    r"|(?P<stray>\*\*+|\$)",
    re.DOTALL,
)


def _parse_macro(text: str, start: int, math: bool) -> tuple[list[_Node], int]:
    """Parse the macro at ``start`` (a backslash); return its nodes and the index after it."""
    match = _MACRO_NAME.match(text, start)
    if match is None:  # a lone backslash at the very end
        return [], start + 1
    name, symbol = match.group(1), match.group(2)
    end = match.end()
    if symbol is not None:
        if symbol in _ESCAPED_CHARS:
            return [_Text(symbol)], end
        if symbol in _ACCENTS:
            argument = _brace_argument(text, end)
            if argument is not None:
                end = argument[1]
            elif text[end : end + 1].isalpha():
                end += 1
            else:
                return [], end
        return [_Text(_latex_to_unicode(text[start:end]))], end
    if name == "url":
        argument = _brace_argument(text, end)
        if argument is not None:
            return _link(argument[0], ()), argument[1]
    if name == "href":
        target = _brace_argument(text, end)
        if target is not None:
            label = _brace_argument(text, target[1])
            if label is not None:
                return _link(target[0], tuple(_parse(label[0], math))), label[1]
    if name in _FORMAT_MACROS:
        argument = _brace_argument(text, end)
        if argument is not None:
            children = tuple(_parse(argument[0], math))
            return [_Styled(_FORMAT_MACROS[name], children)], argument[1]
        return [], end
    # Any other macro: hand it, with its brace arguments, to pylatexenc.
    while (argument := _brace_argument(text, end)) is not None:
        end = argument[1]
    return [_Text(_latex_to_unicode(text[start:end]))], end


def _parse_math(text: str) -> list[_Node]:
    """Math content: scripts become ``_Script`` nodes, everything else goes to pylatexenc."""
    nodes: list[_Node] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            fragment = "".join(pending)
            pending.clear()
            if "\\" in fragment or "{" in fragment:
                fragment = _latex_to_unicode(fragment)
            nodes.append(_Text(_space_operators(fragment)))

    index = 0
    while index < len(text):
        char = text[index]
        if char in "^_":
            flush()
            argument = _brace_argument(text, index + 1)
            if argument is not None:
                content, index = argument
            elif index + 1 < len(text) and text[index + 1] == "\\":
                macro_start = index + 1
                macro = _MACRO_NAME.match(text, macro_start)
                index = macro.end() if macro else index + 2
                while (argument := _brace_argument(text, index)) is not None:
                    index = argument[1]
                content = text[macro_start:index]
            else:
                content = text[index + 1 : index + 2]
                index += 2
            nodes.append(_Script(char, tuple(_parse_math(content))))
        elif char == "\\":
            match = _MACRO_NAME.match(text, index)
            name = match.group(1) if match else None
            if name in _FORMAT_MACROS or name in ("url", "href"):
                flush()
                macro_nodes, index = _parse_macro(text, index, math=True)
                nodes.extend(macro_nodes)
            else:
                end = match.end() if match else index + 1
                while (argument := _brace_argument(text, end)) is not None:
                    end = argument[1]
                pending.append(text[index:end])
                index = end
        elif char == "{":
            end = _closing_brace(text, index)
            if end < 0:
                index += 1
                continue
            flush()
            nodes.extend(_parse_math(text[index + 1 : end]))
            index = end + 1
        elif char == "}":
            index += 1
        else:
            pending.append(char)
            index += 1
    flush()
    return nodes


def _parse(text: str, math: bool = False) -> list[_Node]:
    """Parse text-mode content (or, with ``math``, the inside of ``$…$``) into nodes."""
    if math:
        return _parse_math(text)
    nodes: list[_Node] = []
    position = 0
    search_from = 0
    # Finding where a token could start first is several times faster than letting the
    # many-branched token pattern scan the whole text itself.
    while (start := _TOKEN_START.search(text, search_from)) is not None:
        match = _TEXT_TOKEN.match(text, start.start())
        if match is None:
            search_from = start.start() + 1
            continue
        if match.start() > position:
            nodes.append(_Text(text[position : match.start()]))
        position = match.end()
        kind = match.lastgroup
        if kind == "target":
            label = match.group("label").strip().strip("`").strip()
            target = match.group("target")
            children = () if _same_url(label, target) else tuple(_parse(label))
            nodes.extend(_link(target, children))
        elif kind == "url":
            url = match.group("url").rstrip(_TRAILING_URL_PUNCTUATION)
            nodes.extend(_link(url, ()))
            position = match.start() + len(url)
        elif kind == "quoted":
            nodes.extend([_Text("“"), *_parse(match.group(kind)), _Text("”")])
        elif kind == "single_quoted":
            nodes.extend([_Text("\u2018"), *_parse(match.group(kind)), _Text("\u2019")])
        elif kind in ("math", "display_math"):
            nodes.append(_Styled("", tuple(_parse_math(match.group(kind)))))
        elif kind == "bold":
            nodes.append(_Styled("b", tuple(_parse(match.group("bold")))))
        elif kind in ("italic", "underscored"):
            nodes.append(_Styled("i", tuple(_parse(match.group(kind)))))
        elif kind == "code":
            code = match.group("code").strip()
            if _BARE_URL.fullmatch(code):
                nodes.extend(_link(code, ()))
            else:
                nodes.append(_Styled("code", tuple(_parse(code))))
        elif kind == "brace":
            # An unbalanced brace is a LaTeX leftover and is dropped; a balanced one is a TeX
            # group, unless it holds a comma: {BoolQ, SST2} is a set.
            end = _closing_brace(text, match.start()) if match.group(kind) == "{" else -1
            if end >= 0:
                inner = _parse(text[match.end() : end])
                if "," in text[match.end() : end]:
                    inner = [_Text("{"), *inner, _Text("}")]
                nodes.extend(inner)
                position = end + 1
        elif kind == "tie":
            nodes.append(_Text(" "))
        elif kind == "backslash":
            macro_nodes, position = _parse_macro(text, match.start(), math=False)
            nodes.extend(macro_nodes)
        search_from = position
    if position < len(text):
        nodes.append(_Text(text[position:]))
    return nodes


# --- links ----------------------------------------------------------------------------------

_TRAILING_URL_PUNCTUATION = ".,;:!?'\"*_~"


# Characters that would end a Slack link early or read as markup, percent-encoded.
_URL_UNSAFE = str.maketrans({char: f"%{ord(char):02X}" for char in "|<>$*\\ "})
_SCHEMELESS_URL = re.compile(r"(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?", re.IGNORECASE)


def _link(target: str, children: tuple[_Node, ...]) -> list[_Node]:
    """A link node for an http(s) target; the label alone when the target is not a URL.

    The URL loses the sentence's punctuation, a clone suffix (``RiemGCP.git.`` → ``RiemGCP``)
    and a trailing slash after a path, so the same repository is one link however written.
    """
    url = _trimmed_url(target)
    if not url.startswith(("http://", "https://")):
        if not _SCHEMELESS_URL.fullmatch(url):
            return list(children) or _parse(target)
        url = "https://" + url
    return [_Link(_without_path_slash(url), children)]


def _trimmed_url(target: str) -> str:
    """``target`` without the sentence's punctuation or a clone suffix, escaped for Slack."""
    url = target.strip().rstrip(_TRAILING_URL_PUNCTUATION).removesuffix(".git")
    return url.translate(_URL_UNSAFE)


def _without_path_slash(url: str) -> str:
    if not url.endswith("/"):  # nothing to strip, so no need to parse it
        return url
    return url.rstrip("/") if urlsplit(url).path not in ("", "/") else url


def _same_url(first: str, second: str) -> bool:
    return first.rstrip("/") == second.rstrip("/")


_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co")
_REFERENCE_HOSTS = ("arxiv.org", "doi.org", "openreview.net", "aclanthology.org", "wikipedia.org")


def extract_code_urls(links: Iterable[str]) -> tuple[str, ...]:
    """The links that lead to code or a project page, rather than to other papers.

    Code hosts come first because a reader asking "where is the code" wants the repository
    before the project page.
    """
    code: list[str] = []
    pages: list[str] = []
    for link in links:
        host = (urlsplit(link).hostname or "").lower().removeprefix("www.")
        if host in _CODE_HOSTS or any(host.endswith("." + name) for name in _CODE_HOSTS):
            code.append(link)
        elif host and not host.endswith(_REFERENCE_HOSTS):
            pages.append(link)
    return tuple(code + pages)


# --- rendering ------------------------------------------------------------------------------


def _plain(nodes: Iterable[_Node]) -> str:
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, _Text):
            parts.append(node.text)
        elif isinstance(node, _Styled):
            parts.append(_plain(node.children))
        elif isinstance(node, _Script):
            parts.append(_script_text(node.kind, _plain(node.children)))
        else:
            label = normalise_whitespace(_plain(node.children))
            parts.append(f"{label} ({node.url})" if label else node.url)
    return "".join(parts)


def _links(nodes: Iterable[_Node], found: dict[str, None]) -> None:
    for node in nodes:
        if isinstance(node, _Link):
            found.setdefault(node.url)
        elif isinstance(node, _Styled | _Script):
            _links(node.children, found)


@dataclass(frozen=True)
class _Marker:
    """An opening or closing Slack formatting character, kept only if Slack would honour it."""

    pair: int
    char: str


_SLACK_MARKERS = {"b": "*", "i": "_", "code": "`"}


def _display_parts(
    nodes: Iterable[_Node],
    active: frozenset[str],
    parts: list[str | _Marker],
    pairs: Iterator[int],
) -> None:
    for node in nodes:
        if isinstance(node, _Text):
            parts.append(mrkdwn_literal(node.text))
        elif isinstance(node, _Script):
            parts.append(mrkdwn_literal(_script_text(node.kind, _plain(node.children))))
        elif isinstance(node, _Link):
            parts.append(_display_link(node))
        elif node.style in active or node.style == "" or "code" in active:
            _display_parts(node.children, active, parts, pairs)
        else:
            inner: list[str | _Marker] = []
            _display_parts(node.children, active | {node.style}, inner, pairs)
            leading, trailing = _strip_edges(inner)
            marker = _Marker(next(pairs), _SLACK_MARKERS[node.style])
            parts.extend([leading, marker, *inner, marker, trailing])


def _display_link(link: _Link) -> str:
    label = normalise_whitespace(_plain(link.children)).replace("|", "¦")
    url = escape_mrkdwn(link.url)
    return f"<{url}|{escape_mrkdwn(label)}>" if label else f"<{url}>"


def _strip_edges(parts: list[str | _Marker]) -> tuple[str, str]:
    """Strip whitespace at both ends of a formatted run; return what was there.

    Slack only formats ``*bold*`` when no space sits just inside the stars.
    """
    edges = []
    for indices in (range(len(parts)), range(len(parts) - 1, -1, -1)):
        found = ""
        for index in indices:
            part = parts[index]
            if isinstance(part, _Marker):
                break
            stripped = part.lstrip() if indices.step == 1 else part.rstrip()
            if stripped != part:
                found = " "
            parts[index] = stripped
            if stripped:
                break
        edges.append(found)
    return edges[0], edges[1]


def _display(nodes: list[_Node]) -> str:
    """Slack mrkdwn, keeping a formatting pair only where Slack will render it.

    Slack ignores ``*`` and ``_`` inside a word (``$\\textbf{Di}$rected`` would show literal
    stars), so a pair touching a letter or digit on the outside, or with nothing inside, is
    dropped.
    """
    parts: list[str | _Marker] = []
    _display_parts(nodes, frozenset(), parts, itertools.count())
    texts = ["" if isinstance(part, _Marker) else part for part in parts]
    opened: dict[int, int] = {}
    kept: set[int] = set()
    for index, part in enumerate(parts):
        if not isinstance(part, _Marker):
            continue
        if part.pair not in opened:
            opened[part.pair] = index
            continue
        start = opened[part.pair]
        before = "".join(texts[:start])[-1:]
        after = "".join(texts[index + 1 :])[:1]
        inside = "".join(texts[start + 1 : index])
        if inside.strip() and not before.isalnum() and not after.isalnum():
            kept.add(part.pair)
    tokens: list[str | tuple[str, bool]] = []
    for index, part in enumerate(parts):
        if not isinstance(part, _Marker):
            if texts[index]:
                tokens.append(texts[index])
        elif part.pair in kept:
            closing = opened[part.pair] != index
            previous = tokens[-1] if tokens else None
            if not closing and previous == (part.char, True):
                tokens.pop()  # two adjacent runs of one style (``**a****b**``) become one
                continue
            tokens.append((part.char, closing))
    output = [token if isinstance(token, str) else token[0] for token in tokens]
    return "".join(output)


def clean_text(raw: str) -> CleanText:
    """Plain text, Slack mrkdwn and the URLs of an abstract or title written in LaTeX/Markdown."""
    return clean_normalised_text(normalise_whitespace(raw))


def clean_normalised_text(text: str) -> CleanText:
    """``clean_text`` of text that has been through ``normalise_whitespace`` already.

    The corpus normalises every abstract for its id anyway; a second pass over each of
    100,000 abstracts is a measurable part of loading them.
    """
    if not _may_hold_markup(text):
        return CleanText(text, (), functools.partial(escape_mrkdwn, text))
    if not any(char in text for char in _TOKEN_CHARS):
        return _clean_bare_urls(text)
    return _parse_and_render(text)


def _clean_bare_urls(text: str) -> CleanText:
    """``clean_text`` of normalised text whose only markup is bare ``http(s)://`` URLs.

    Many abstracts are like that (a code link at the end). Without any of ``_TOKEN_CHARS``
    the parser would only ever make text and link nodes, so both renderings are written
    directly from the text between the URLs, sparing the scan for every other kind of token
    and the tree walks.
    """
    pieces: list[tuple[str, str]] = []  # (text before a URL, the URL), then the rest and ""
    position = 0
    for match in _BARE_URL.finditer(text):
        target = match.group().rstrip(_TRAILING_URL_PUNCTUATION)
        # Trimming only touches the right end, so the URL keeps its scheme.
        pieces.append((text[position : match.start()], _without_path_slash(_trimmed_url(target))))
        position = match.start() + len(target)
    pieces.append((text[position:], ""))
    plain = _tidy("".join(before + url for before, url in pieces))
    links = tuple(dict.fromkeys(url for _, url in pieces if url))
    return CleanText(plain, links, functools.partial(_display_bare_urls, pieces))


def _display_bare_urls(pieces: list[tuple[str, str]]) -> str:
    return _tidy(
        "".join(
            mrkdwn_literal(before) + (f"<{escape_mrkdwn(url)}>" if url else "")
            for before, url in pieces
        )
    )


def _parse_and_render(text: str) -> CleanText:
    """``clean_text`` of whitespace-normalised text, the long way: parse, then render."""
    if "\\\\" in text:
        text = _repair_double_backslashes(text)
    nodes = _parse(text)
    found: dict[str, None] = {}
    _links(nodes, found)
    return CleanText(_tidy(_plain(nodes)), tuple(found), functools.partial(_display_nodes, nodes))


def _display_nodes(nodes: list[_Node]) -> str:
    return _tidy(_display(nodes))


def _may_hold_markup(text: str) -> bool:
    """Whether ``_TOKEN_START`` finds anything in ``text``, answered with substring scans.

    Most abstracts hold no markup, and a dozen ``in`` tests are several times faster than the
    alternation pattern scanning them.
    """
    return any(char in text for char in _TOKEN_CHARS) or "http://" in text or "https://" in text


_SPACE_BEFORE_PUNCTUATION = re.compile(r" (?=[.,;:](?: |$))")


def _tidy(text: str) -> str:
    """Collapse whitespace and close the gap a dropped citation leaves ("by \\cite{x}.")."""
    return _SPACE_BEFORE_PUNCTUATION.sub("", normalise_whitespace(text))
