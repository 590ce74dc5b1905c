"""The LaTeX in abstracts and titles: which macros format, which vanish, and their Unicode.

pylatexenc supplies the LaTeX-to-Unicode symbol knowledge, but only for the LaTeX fragments
themselves (math spans and unknown macros): fed a whole abstract it reads ``%`` as a comment
and drops the rest of the line, turns ``~`` into a space, and raises on some ``\\href``. Text
with no ``$`` or ``\\`` never reaches it, which also keeps the catalogue load fast.
"""

from __future__ import annotations

import functools
import logging
import re

from pylatexenc import latexwalker
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)

FORMAT_MACROS = {
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
        macros=[MacroTextSpec(name, simplify_repl="%s") for name in FORMAT_MACROS]
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


def latex_to_unicode(fragment: str) -> str:
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
    "ie": "i.e.",
    "eg": "e.g.",
    "etal": "et al.",
    "wrt": "w.r.t.",
}
# Sizing, spacing and old-style font switches: they carry no words, so they may vanish.
_SILENT_MACROS = frozenset(
    (
        *("left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl"),
        *("Bigr", "biggl", "biggr", "Biggl", "Biggr", "displaystyle", "textstyle"),
        *("scriptstyle", "limits", "nolimits", "quad", "qquad", "nonumber", "noindent"),
        *("cal", "bf", "it", "rm", "sf", "tt", "sc", "em"),
    )
)


@functools.cache
def _is_known_macro(name: str) -> bool:
    return name in FORMAT_MACROS or _LATEX_DB.get_macro_spec(name) is not None


def becomes_word(name: str) -> bool:
    """Whether a macro without an argument comes out as its own name (``\\ours`` → "ours").

    Such a macro is the author's own: no package defines it, and only the preamble, which
    the abstract arrives without, says what it stands for (``\\sys`` for the system's name).
    """
    return not (name in _SHORTHANDS or name in _SILENT_MACROS or _is_known_macro(name))


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


def script_text(kind: str, content: str) -> str:
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


_TEX_DASH = re.compile(r"(?<![-<!])(?:---|(?<=\S)--(?=[^\s>-])|(?<=\s)--(?=\s))(?![->])")
"""TeX's dashes in running text: ``---`` an em dash (``plans---pseudocode``), ``--`` an en
dash between words or numbers (``Gauss--Newton``, ``2--10%``) or spaced (``TabM -- a``). A
``--`` opening a word is an option (``--help``), and arrows (``-->``, ``<--``) stay."""


def tex_dashes(text: str) -> str:
    """``text`` with TeX's dashes written as the dashes they typeset (see ``_TEX_DASH``)."""
    if "--" not in text:
        return text
    return _TEX_DASH.sub(lambda match: "\u2014" if len(match.group()) == 3 else "\u2013", text)


def space_operators(math: str) -> str:
    """Space an operator evenly when the source spaced one side only (``8.67\\%\\sim 50.85``).

    pylatexenc keeps the source's spacing; suffix operators (``2.62\\times``) stay attached.
    """
    return _LOPSIDED_OPERATOR.sub(lambda match: f" {match.group(0)} ", math)


def closing_brace(text: str, start: int) -> int:
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


def brace_argument(text: str, start: int) -> tuple[str, int] | None:
    """The ``{…}`` group starting at ``start`` (after optional spaces) and the index past it."""
    index = start
    while index < len(text) and text[index] == " ":
        index += 1
    if index >= len(text) or text[index] != "{":
        return None
    end = closing_brace(text, index)
    if end < 0:
        return None
    return text[index + 1 : end], end + 1


MACRO_NAME = re.compile(r"\\([a-zA-Z]+)\*?|\\(.)", re.DOTALL)
ESCAPED_CHARS = "%$&#_{}"
ACCENTS = "'`^\"~=."


def repair_double_backslashes(text: str) -> str:
    """Undo the seeds' doubled escapes without breaking real line breaks.

    The seed files write ``\\\\%`` and ``\\\\uparrow`` where LaTeX means ``\\%`` and
    ``\\uparrow``; read literally, ``\\\\`` is a line break and ``%`` starts a comment that
    eats the rest of the abstract. A doubled backslash before a known macro or an escapable
    character is therefore one backslash; any other ``\\\\`` is the line break it says.
    """

    def repair(match: re.Match[str]) -> str:
        following = match.group(1)
        if following[0] in ESCAPED_CHARS:
            return "\\"
        if _is_known_macro(following):
            return "\\"
        return " "

    return re.sub(r"\\\\(?=([a-zA-Z]+|[%$&#_{}]))", repair, text).replace("\\\\", " ")
