"""Abstracts and titles as written for OpenReview, parsed into a small tree of nodes.

They arrive as a mix of LaTeX, Markdown and Unicode: ``$8.67\\%\\sim 50.85\\%$``,
``\\textbf{…}``, ``**bold**``, ``[text](url)``. Every consumer needs the same words in its own
form (plain Unicode for the index and TL;DRs, Slack mrkdwn for display), so the text is parsed
once, here, and each form is rendered from the tree: ``bot.papers.plain`` and
``bot.render.markup``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.papers.latex import (
    ACCENTS,
    ESCAPED_CHARS,
    FORMAT_MACROS,
    MACRO_NAME,
    brace_argument,
    closing_brace,
    latex_to_unicode,
    repair_double_backslashes,
    space_operators,
    tex_dashes,
)
from bot.papers.urls import BARE_URL, TRAILING_URL_PUNCTUATION, URL_BODY, link_url


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Styled:
    """``style`` is ``"b"`` (bold), ``"i"`` (italic), ``"code"`` or ``""`` (no formatting)."""

    style: str
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Link:
    url: str
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Script:
    """A math super- (``^``) or subscript (``_``), rendered with Unicode script letters."""

    kind: str
    children: tuple[Node, ...]


Node = Text | Styled | Link | Script


TOKEN_CHARS = "[`$*_{}~\\"
# Where a token could start: one of those characters, or the "h" of "http://" or "https://".
# Written to start with a character class, which the regex engine skips to, rather than as
# an alternation it would try at every character: an "h" is kept only if "ttp://" or
# "ttps://" follows it.
TOKEN_START = re.compile("[" + re.escape(TOKEN_CHARS) + "h](?:(?<=h)ttps?://)?(?<!h)")
_TEXT_TOKEN = re.compile(
    r"\[(?P<label>[^\]\n]*)\]\((?P<target>" + URL_BODY + r")\)"
    r"|(?P<url>" + URL_BODY + r")"
    r"|``(?P<quoted>[^`]*?)''"
    r"|\$\$(?P<display_math>(?:\\.|[^$\\])+?)\$\$"
    r"|\$(?P<math>(?:\\.|[^$\\])+?)\$"
    r"|\*\*(?P<bold>[^*\s](?:[^*]*?[^*\s])?)\*\*"
    r"|(?<![\w_])__(?P<bold_underscored>[^_\s](?:[^_]*?[^_\s])?)__(?![\w_])"
    r"|(?<![*\w])\*(?P<italic>[^*\s](?:[^*]*?[^*\s])?)\*(?![*\w])"
    r"|(?<![\w_])_(?P<underscored>[^_\s](?:[^_]*?[^_\s])?)_(?![\w_])"
    r"|`(?P<single_quoted>[^`'\n]+)'(?!\w)"
    r"|`(?P<code>[^`\n]+)`"
    r"|(?P<brace>[{}])"
    r"|(?P<tie>~)(?=\\)"
    r"|(?<=[^\W\d_][^\W\d_]|[^\W\d_]\.)(?P<word_tie>~)(?=[^\W_]|\()"
    r"|(?P<backslash>\\)"
    r"|(?P<stray>\*\*+|\$)",
    re.DOTALL,
)


def _parse_macro(text: str, start: int, math: bool) -> tuple[list[Node], int]:
    """Parse the macro at ``start`` (a backslash); return its nodes and the index after it."""
    match = MACRO_NAME.match(text, start)
    if match is None:  # a lone backslash at the very end
        return [], start + 1
    name, symbol = match.group(1), match.group(2)
    end = match.end()
    if symbol is not None:
        if symbol in ESCAPED_CHARS:
            return [Text(symbol)], end
        if symbol in ACCENTS:
            argument = brace_argument(text, end)
            if argument is not None:
                end = argument[1]
            elif text[end : end + 1].isalpha():
                end += 1
            else:
                return [], end
        return [Text(latex_to_unicode(text[start:end]))], end
    if name == "url":
        argument = brace_argument(text, end)
        if argument is not None:
            return _link(argument[0], ()), argument[1]
    if name == "href":
        target = brace_argument(text, end)
        if target is not None:
            label = brace_argument(text, target[1])
            if label is not None:
                return _link(target[0], tuple(_parse(label[0], math))), label[1]
    if name in FORMAT_MACROS:
        argument = brace_argument(text, end)
        if argument is not None:
            children = tuple(_parse(argument[0], math))
            return [Styled(FORMAT_MACROS[name], children)], argument[1]
        return [], end
    # Any other macro: hand it, with its brace arguments, to pylatexenc.
    while (argument := brace_argument(text, end)) is not None:
        end = argument[1]
    return [Text(latex_to_unicode(text[start:end]))], end


def _parse_math(text: str) -> list[Node]:
    """Math content: scripts become ``Script`` nodes, everything else goes to pylatexenc."""
    nodes: list[Node] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            fragment = "".join(pending)
            pending.clear()
            if "\\" in fragment or "{" in fragment:
                fragment = latex_to_unicode(fragment)
            nodes.append(Text(space_operators(fragment)))

    index = 0
    while index < len(text):
        char = text[index]
        if char in "^_":
            flush()
            argument = brace_argument(text, index + 1)
            if argument is not None:
                content, index = argument
            elif index + 1 < len(text) and text[index + 1] == "\\":
                macro_start = index + 1
                macro = MACRO_NAME.match(text, macro_start)
                index = macro.end() if macro else index + 2
                while (argument := brace_argument(text, index)) is not None:
                    index = argument[1]
                content = text[macro_start:index]
            else:
                content = text[index + 1 : index + 2]
                index += 2
            nodes.append(Script(char, tuple(_parse_math(content))))
        elif char == "\\":
            match = MACRO_NAME.match(text, index)
            name = match.group(1) if match else None
            if name in FORMAT_MACROS or name in ("url", "href"):
                flush()
                macro_nodes, index = _parse_macro(text, index, math=True)
                nodes.extend(macro_nodes)
            else:
                end = match.end() if match else index + 1
                while (argument := brace_argument(text, end)) is not None:
                    end = argument[1]
                pending.append(text[index:end])
                index = end
        elif char == "{":
            end = closing_brace(text, index)
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


def _parse(text: str, math: bool = False) -> list[Node]:
    """Parse text-mode content (or, with ``math``, the inside of ``$…$``) into nodes."""
    if math:
        return _parse_math(text)
    nodes: list[Node] = []
    position = 0
    search_from = 0
    # Finding where a token could start first is several times faster than letting the
    # many-branched token pattern scan the whole text itself.
    while (start := TOKEN_START.search(text, search_from)) is not None:
        match = _TEXT_TOKEN.match(text, start.start())
        if match is None:
            search_from = start.start() + 1
            continue
        if match.start() > position:
            nodes.append(Text(tex_dashes(text[position : match.start()])))
        position = match.end()
        kind = match.lastgroup
        if kind == "target":
            label = match.group("label").strip().strip("`").strip()
            target = match.group("target")
            children = () if _same_url(label, target) else tuple(_parse(label))
            nodes.extend(_link(target, children))
        elif kind == "url":
            url = match.group("url").rstrip(TRAILING_URL_PUNCTUATION)
            nodes.extend(_link(url, ()))
            position = match.start() + len(url)
        elif kind == "quoted":
            nodes.extend([Text("“"), *_parse(match.group(kind)), Text("”")])
        elif kind == "single_quoted":
            nodes.extend([Text("\u2018"), *_parse(match.group(kind)), Text("\u2019")])
        elif kind in ("math", "display_math"):
            nodes.append(Styled("", tuple(_parse_math(match.group(kind)))))
        elif kind in ("bold", "bold_underscored"):
            nodes.append(Styled("b", tuple(_parse(match.group(kind)))))
        elif kind in ("italic", "underscored"):
            nodes.append(Styled("i", tuple(_parse(match.group(kind)))))
        elif kind == "code":
            code = match.group("code").strip()
            if BARE_URL.fullmatch(code):
                nodes.extend(_link(code, ()))
            else:
                nodes.append(Styled("code", tuple(_parse(code))))
        elif kind == "brace":
            # An unbalanced brace is a LaTeX leftover and is dropped; a balanced one is a TeX
            # group, unless it holds a comma: {BoolQ, SST2} is a set.
            end = closing_brace(text, match.start()) if match.group(kind) == "{" else -1
            if end >= 0:
                inner = _parse(text[match.end() : end])
                if "," in text[match.end() : end]:
                    inner = [Text("{"), *inner, Text("}")]
                nodes.extend(inner)
                position = end + 1
        elif kind in ("tie", "word_tie"):
            nodes.append(Text(" "))
        elif kind == "backslash":
            macro_nodes, position = _parse_macro(text, match.start(), math=False)
            nodes.extend(macro_nodes)
        search_from = position
    if position < len(text):
        nodes.append(Text(tex_dashes(text[position:])))
    return nodes


def _link(target: str, children: tuple[Node, ...]) -> list[Node]:
    """A link node for a URL target; the label alone when the target is not a URL."""
    url = link_url(target)
    if url is None:
        return list(children) or _parse(target)
    return [Link(url, children)]


def _same_url(first: str, second: str) -> bool:
    return first.rstrip("/") == second.rstrip("/")


def parse_markup(text: str) -> list[Node]:
    """The nodes of a whitespace-normalised title or abstract."""
    if "\\\\" in text:
        text = repair_double_backslashes(text)
    return _parse(text)


def may_hold_markup(text: str) -> bool:
    """Whether ``TOKEN_START`` finds anything in ``text``, or a TeX dash (``--``) is there
    to write as one, answered with substring scans.

    Most abstracts hold no markup, and a dozen ``in`` tests are several times faster than the
    alternation pattern scanning them.
    """
    return (
        any(char in text for char in TOKEN_CHARS)
        or "http://" in text
        or "https://" in text
        or "--" in text
    )
