"""``python -m bot shell``: the real Slack app, driven from a terminal.

Nothing here answers a question itself. Each line a person types becomes the signed request
Slack would send (a slash command, an ``app_mention`` event, a ``block_actions`` click),
dispatched into the same Bolt app and listeners that serve Slack; the Web API client and the
``response_url`` point at an in-process ``SlackRecorder``, and whatever the app posted there
is printed. So the shell and Slack cannot disagree about what the bot says.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import secrets
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from slack_bolt import App, BoltRequest
from slack_sdk import WebClient

from bot.answers.typed import Intent, parse_command
from bot.arguments import ArgumentParser, program
from bot.buttons import ascii_count
from bot.digest.schedule import DigestScheduler
from bot.papers.corpus import CATALOGUE_ACCEPTED_PAPERS, CorpusError
from bot.papers.urls import is_paper_site, linked_paper_id
from bot.render import foryou as render_foryou
from bot.render import papers as render_papers
from bot.render import terminal as render_terminal
from bot.render.mrkdwn import escape_mrkdwn, terminal_text, unescape_mrkdwn
from bot.render.terminal import WIDTH, paragraph, render
from bot.search.results import FILTERS
from bot.settings import Settings
from bot.shell.console import PROMPT, Console
from bot.shell.fake_slack import RESPONSE_URL, RecordedCall, SlackRecorder
from bot.shell.logs import log_file_path, logs_in_file
from bot.slack import payloads as payloads
from bot.slack.client import make_web_client
from bot.slack.work import InlineExecutor
from bot.wiring.root import Services, build_app, build_services

SHELL_TOKEN = "xoxb-local-shell"
BOT_NAME = "@paperbot"

COMMAND = "/paper"
EXAMPLE = f"{COMMAND} graph sparsification"
RELATED = "related"
MORE = "more"
FOR_YOU = "foryou"
SOURCES = "sources"
NEW = "new"
FOR_YOU_COMMAND = "for me"
DISMISS = "dismiss"
SAVE = "save"
REACT = "react"
_EMOJI = re.compile(r"^:?([a-z0-9_+\-]+(?:::[a-z0-9\-]+)?):?$")
"""``:+1:``, ``thumbsup`` or ``:+1::skin-tone-2:``: an emoji name as Slack sends it (no colons)."""
_DISMISS_ACTIONS = {render_foryou.ACTION_DISMISS, render_foryou.ACTION_HOME_DISMISS}
_TYPED = (
    (f"{COMMAND} WORDS", "search; only you see the answer (try /paper help)"),
    (
        f"{COMMAND} … FILTERS",
        "narrow a search: " + " ".join(op.syntax for op in FILTERS) + " (e.g. since:7d)",
    ),
    (f"{BOT_NAME} WORDS", "ask in #research; the bot answers in a thread"),
    (f"{BOT_NAME} more", "the next results, in the current thread"),
    (f"{BOT_NAME} {NEW} [TOPIC]", "the newest papers, in a thread everyone sees"),
    (BOT_NAME, "papers related to the current thread's first message"),
    (f"{COMMAND} saved", "your reading list"),
    (f"{COMMAND} {FOR_YOU_COMMAND}", "papers like the ones you saved"),
    (f"{COMMAND} {NEW} [TOPIC]", "the papers the followed feeds announced last"),
    (f"{COMMAND} forget me", "delete your reading list and all the bot keeps about you"),
)
_MESSAGE = ("any other text", "a message in #research: an OpenReview link in it gets a preview")
_GESTURES = (
    ("NUMBER", "press the button with that number on the last answer"),
    (f"{SAVE} N", "save paper N of the last answer to your reading list"),
    (FOR_YOU, f"{COMMAND} {FOR_YOU_COMMAND}: papers like the ones you saved"),
    (f"{DISMISS} N", "Not relevant on suggestion N of the last answer: never suggested again"),
    (f"{REACT} N :EMOJI:", "react on the bot's Nth latest post in #research (1: the latest)"),
    (MORE, "the next page of the last answer: its Next button, or the thread's next results"),
    (f"{RELATED} TEXT", "the message shortcut Find related papers, on a message saying TEXT"),
    ("home", "your App Home tab: the reading list and the daily-paper channels"),
    (SOURCES, f"{COMMAND} {SOURCES}: the arXiv and OpenReview feeds followed, and their fetches"),
    (NEW, f"{COMMAND} {NEW}: the papers announced on the last announcement day"),
    ("help", "this text"),
    ("quit", "leave (Ctrl-D works too)"),
)
"""Shell-only words: each stands for a gesture Slack has no typed form for."""


def _lines(usages: Sequence[tuple[str, str]], width: int) -> str:
    return "".join(f"  {usage:<{width}}{what}\n" for usage, what in usages)


_USAGE_WIDTH = 2 + max(len(usage) for usage, _ in (*_TYPED, _MESSAGE, *_GESTURES))
"""The column the explanations start at: two spaces past the longest usage, in both lists."""
HELP = (
    "Type what you would type in Slack:\n"
    + _lines((*_TYPED, _MESSAGE), _USAGE_WIDTH)
    + "and these for what you would click:\n"
    + _lines(_GESTURES, _USAGE_WIDTH)
)
NO_ANSWER = (
    textwrap.fill(
        f"paperbot does not answer that message: in a channel it answers {COMMAND}, "
        f"{BOT_NAME} and OpenReview links. The shell understands "
        + ", ".join(usage for usage, _ in (*_TYPED, *_GESTURES))
        + ".",
        WIDTH,
    )
    + "\n"
)
_URL = re.compile(r"https?://[^\s<>]+")
_URL_END = ".,;:!?)]}'\""
"""Punctuation after a URL that Slack leaves out of the link, as a reader would."""
_WIRE_LINK = re.compile(r"<(https?://[^<>|]+)>")
_NOTHING_SHOWN = "(no answer)\n"
_NUMBERED = {
    SAVE: render_terminal.save_usage(SAVE),
    DISMISS: render_terminal.dismiss_usage(DISMISS, FOR_YOU),
}
"""The words taking a paper's number, each with the usage a line without a number gets."""
_TYPO_CUTOFF = 0.75
"""How alike a typed word and a shell word must be (difflib's ratio) to be a typo of it:
``sve`` and ``mroe`` are, ``hello`` (a message someone may well post) is not ``help``."""


@dataclass(frozen=True)
class _Place:
    """Where a message the shell printed lives, as a click on it tells Slack."""

    message_ts: str
    is_ephemeral: bool
    channel_id: str
    view: dict[str, Any] | None = None
    """The App Home or modal the message is, for a click from a view."""
    unfurl_url: str | None = None
    """The link whose preview card it is, for a click in a preview."""


@dataclass(frozen=True)
class _Shown:
    """A button on a message the shell printed."""

    button: dict[str, Any]
    block_id: str
    place: _Place
    card: int | None
    """The number on the paper card it is on (see ``terminal.Choice.card``)."""


class Shell:
    """One conversation in a pretend ``#research`` channel."""

    def __init__(self, services: Services, recorder: SlackRecorder, client: WebClient) -> None:
        self.workspace = payloads.Workspace(bot_user_id=recorder.bot_user_id)
        self.recorder = recorder
        self._secret = secrets.token_hex(16)
        self.app = self._build_app(services, client)
        self._buttons: dict[int, _Shown] = {}
        self._thread_ts: str | None = None
        self._ephemeral_count = 0
        self._shown_calls = 0
        self._turn = threading.RLock()
        """Held while a line is answered or news is shown: the scheduler's thread posts the
        paper of the day while the person may be typing."""

    def _build_app(self, services: Services, client: WebClient) -> App:
        settings = Settings(
            slack_bot_token=SHELL_TOKEN,
            slack_signing_secret=self._secret,
            slack_api_url=self.recorder.base_url,
        )
        return build_app(settings, services.answers, client, listener_executor=InlineExecutor())

    # what the person typed

    def handle(self, line: str) -> str:
        """The shell's output for one line of input."""
        with self._turn:
            return self._handle(line)

    def news(self) -> str:
        """What the bot posted in #research by itself (the paper of the day) since the last
        answer was shown, or "" when nothing."""
        with self._turn:
            calls = self.recorder.calls
            posted = [
                call
                for call in calls[self._shown_calls :]
                if call.method == "chat.postMessage"
                and call.args.get("channel") == self.workspace.channel_id
            ]
            self._shown_calls = len(calls)
            return self._show(posted) if posted else ""

    def _handle(self, line: str) -> str:
        line = line.strip()
        if not line:
            return ""
        if line.lower() in {"help", "?"}:
            return HELP
        if (number := ascii_count(line)) is not None:
            return self.press(number)
        if line.lower() == "home":
            return self.home()
        if line.lower() == MORE:
            return self.more()
        if line.lower() == FOR_YOU:
            return self.slash_command(FOR_YOU_COMMAND)
        if line.lower() in {SOURCES, NEW}:
            return self.slash_command(line.lower())
        word, _, rest = line.partition(" ")
        verb, rest = word.lower(), rest.strip()
        if verb in _NUMBERED:
            if (number := ascii_count(rest)) is not None:
                return self.save(number) if verb == SAVE else self.dismiss(number)
            if len(rest.split()) <= 1:
                return _NUMBERED[verb]
        if verb == REACT:
            return self.react(rest)
        if verb == RELATED:
            return self.related(rest) if rest else render_terminal.related_usage(RELATED)
        if word == COMMAND:
            return self.slash_command(rest)
        if verb == BOT_NAME:
            return self.mention(rest)
        if (meant := _meant(word, rest)) is not None:
            return render_terminal.did_you_mean(meant)
        return self.message(line)

    def slash_command(self, text: str) -> str:
        fields = payloads.slash_command(
            self.workspace, escape_mrkdwn(text), self.recorder.response_url()
        )
        return self._exchange(payloads.form_body(fields))

    def mention(self, text: str) -> str:
        """A mention: ``more`` and a bare mention continue the current thread; a search
        starts a new one (``more`` with no thread to continue starts none: there is nothing
        in it to page on or to find related papers for)."""
        follows_up = text.lower() in {"", MORE}
        thread_ts = self._thread_ts if follows_up else None
        wire = f"<@{self.workspace.bot_user_id}> {escape_mrkdwn(text)}".strip()
        posted = self.recorder.add_message(
            self.workspace.channel_id, wire, user=self.workspace.user_id, thread_ts=thread_ts
        )
        if not follows_up:
            self._thread_ts = posted["ts"]
        event = payloads.app_mention(self.workspace, wire, posted["ts"], thread_ts=thread_ts)
        return self._exchange(payloads.json_body(payloads.event_callback(self.workspace, event)))

    def message(self, text: str) -> str:
        """A message posted in #research, as Slack delivers it: the ``message`` event, and a
        ``link_shared`` event for its links in the app's unfurl domains (OpenReview's and
        arXiv's)."""
        wire = _wire_text(text)
        posted = self.recorder.add_message(
            self.workspace.channel_id, wire, user=self.workspace.user_id
        )
        event = payloads.channel_message(self.workspace, wire, posted["ts"])
        requests = [payloads.json_body(payloads.event_callback(self.workspace, event))]
        pasted = _WIRE_LINK.findall(wire)
        links = [link for link in pasted if _unfurls_here(link)]
        if links:
            shared = payloads.link_shared(self.workspace, links, posted["ts"])
            requests.append(payloads.json_body(payloads.event_callback(self.workspace, shared)))
        shown = self._exchange(*requests)
        if shown != _NOTHING_SHOWN:
            return shown
        if not pasted:
            return NO_ANSWER
        return render_terminal.no_preview(_paper_ids(links), paper_links=bool(links))

    def related(self, text: str) -> str:
        """**Find related papers** chosen on a message saying ``text`` in #research."""
        posted = self.recorder.add_message(
            self.workspace.channel_id, _wire_text(text), user=self.workspace.user_id
        )
        payload = payloads.message_action(self.workspace, posted, self.recorder.response_url())
        return self._exchange(payloads.interactive_body(payload))

    def more(self) -> str:
        """The last answer's **Next** button; after a thread reply, the thread's next results."""
        for number, shown in self._buttons.items():
            if shown.button["action_id"] == render_papers.ACTION_NEXT_PAGE:
                return self.press(number)
        if self._thread_ts is not None:
            return self.mention(MORE)
        return f"There is no next page to show: the last answer has none. Try `{EXAMPLE}`.\n"

    def home(self) -> str:
        """Open the App Home tab, as clicking the bot's name and then *Home* does."""
        event = payloads.app_home_opened(self.workspace)
        body = payloads.json_body(payloads.event_callback(self.workspace, event))
        return self._exchange(body, show_home=True)

    def save(self, number: int) -> str:
        """Press **Save** on paper ``number`` of the last answer: the number on its card."""
        saves = self._by_card(_is_save)
        if not saves:
            return render_terminal.nothing_to_save(EXAMPLE)
        if number not in saves:
            return render_terminal.no_such_paper(number, saves)
        shown = self._buttons[saves[number]]
        if shown.button["action_id"] != render_papers.ACTION_SAVE:
            return render_terminal.already_saved()
        return self.press(saves[number])

    def dismiss(self, number: int) -> str:
        """Press **Not relevant** on suggestion ``number`` of the last answer."""
        dismisses = self._by_card(lambda shown: shown.button["action_id"] in _DISMISS_ACTIONS)
        if not dismisses:
            return render_terminal.no_suggestions(number, FOR_YOU)
        if number not in dismisses:
            return render_terminal.no_such_suggestion(number, dismisses)
        return self.press(dismisses[number])

    def _by_card(self, kind: Callable[[_Shown], bool]) -> dict[int, int]:
        """The last answer's buttons of one kind, by the number a person reads on the card
        each is on (``6.`` on a second page), or by their order where cards have no number
        (the reading list, the App Home): the button number to press for each."""
        found = sorted(number for number, shown in self._buttons.items() if kind(shown))
        by_card: dict[int, int] = {}
        for place, number in enumerate(found, start=1):
            card = self._buttons[number].card
            by_card.setdefault(place if card is None else card, number)
        return by_card

    def react(self, rest: str) -> str:
        """An emoji on the bot's ``N``-th latest post in #research (the paper of the day, a
        shared card), sent as Slack's ``reaction_added`` event through the same listener."""
        count, _, emoji = rest.strip().partition(" ")
        number, name = ascii_count(count), _EMOJI.match(emoji.strip().lower())
        if number is None or name is None:
            return render_terminal.react_usage(REACT)
        posts = [
            str(call.response["ts"])
            for call in self.recorder.calls
            if call.method == "chat.postMessage"
            and call.args.get("channel") == self.workspace.channel_id
            and call.response.get("ok")
        ]
        if not 1 <= number <= len(posts):
            return f"The bot has no post {number} in #research (it has {len(posts)}).\n"
        event = payloads.reaction(
            self.workspace, name.group(1), self.workspace.channel_id, posts[-number]
        )
        shown = self._exchange(payloads.json_body(payloads.event_callback(self.workspace, event)))
        reacted = f"(you reacted :{name.group(1)}: on the bot's post {number} in #research)\n"
        return reacted if shown == _NOTHING_SHOWN else shown + reacted

    def press(self, number: int) -> str:
        shown = self._buttons.get(number)
        if shown is None:
            return f"There is no button {number} on the last answer.\n"
        place = shown.place
        if place.view is not None:
            payload = payloads.view_block_actions(
                self.workspace, shown.button, shown.block_id, place.view
            )
            return self._exchange(payloads.interactive_body(payload), show_home=True)
        payload = payloads.block_actions(
            self.workspace,
            shown.button,
            shown.block_id,
            self.recorder.response_url(),
            message_ts=place.message_ts,
            is_ephemeral=place.is_ephemeral,
            channel_id=place.channel_id,
            unfurl_url=place.unfurl_url,
        )
        return self._exchange(payloads.interactive_body(payload))

    # Slack's side

    def _exchange(self, *requests: tuple[str, str], show_home: bool = False) -> str:
        """Dispatch the requests Slack would send for one gesture, each a body and its content
        type; print what the app sent. The App Home is redrawn after every **Save** too, but
        shown only when the person is looking at it."""
        since = len(self.recorder.calls)
        for body, content_type in requests:
            headers = payloads.signed_headers(self._secret, body, content_type)
            response = self.app.dispatch(
                BoltRequest(body=body, headers={k.lower(): v for k, v in headers.items()})
            )
            if response.status != 200:
                return f"(the app answered HTTP {response.status}: {response.body})\n"
        calls = self.recorder.calls[since:]
        self._shown_calls = since + len(calls)
        if not show_home:
            calls = [call for call in calls if call.method != "views.publish"]
        return self._show(calls)

    def _show(self, calls: Sequence[RecordedCall]) -> str:
        self._buttons = {}
        parts: list[str] = []
        for call in calls:
            if call.status != 200 or not call.response.get("ok", False):
                continue
            if call.method == "files.completeUploadExternal":
                parts.extend(self._files(call))
                continue
            for heading, blocks, fallback, place in self._messages(call):
                view = render(
                    blocks,
                    fallback,
                    first_number=len(self._buttons) + 1,
                    channel_names={self.workspace.channel_id: self.workspace.channel_name},
                )
                for choice in view.choices:
                    self._buttons[choice.number] = _Shown(
                        choice.button, choice.block_id, place, choice.card
                    )
                parts.append(f"--- {heading} ---\n{view.text}\n")
        if not parts:
            return _NOTHING_SHOWN
        return "\n".join(parts)

    def _messages(self, call: RecordedCall) -> list[tuple[str, list[dict[str, Any]], str, _Place]]:
        """Heading, blocks, fallback text and place of each message a call showed: a preview
        card per link for ``chat.unfurl``, else at most one."""
        if call.method == "chat.unfurl":
            ts, channel = str(call.args.get("ts")), self.workspace.channel_id
            return [
                (
                    f"paperbot's preview of {unescape_mrkdwn(link)}",
                    unfurl.get("blocks") or [],
                    "",
                    _Place(ts, False, channel, unfurl_url=link),
                )
                for link, unfurl in call.unfurls.items()
            ]
        described = self._describe(call)
        if described is None:
            return []
        heading, message_ts, ephemeral, channel = described
        in_view = call.args.get("view") if call.method.startswith("views.") else None
        blocks = in_view["blocks"] if in_view else call.blocks
        place = _Place(message_ts, ephemeral, channel, in_view)
        return [(heading, blocks, call.text, place)]

    def _files(self, call: RecordedCall) -> list[str]:
        """A file the app sent (the reading list's ``.bib``), shown with its content."""
        ids = {shared["id"] for shared in call.response.get("files") or ()}
        return [
            f"--- paperbot sent you a file in a direct message: {shared.filename} ---\n"
            f"{shared.initial_comment or ''}\n{shared.content.decode('utf-8', 'replace')}"
            for shared in self.recorder.files
            if shared.id in ids
        ]

    def _describe(self, call: RecordedCall) -> tuple[str, str, bool, str] | None:
        """Heading, message ts, ephemeral or not, and channel of a message the app sent."""
        channel = self.workspace.channel_id
        if call.method == "chat.postMessage":
            in_channel = f"in #{self.workspace.channel_name}"
            where = "in the thread" if call.args.get("thread_ts") else in_channel
            return f"paperbot, {where}", call.response["ts"], False, channel
        if call.method in {RESPONSE_URL, "chat.postEphemeral"}:
            self._ephemeral_count += 1
            note = " (replaces the previous answer)" if call.args.get("replace_original") else ""
            ts = f"ephemeral.{self._ephemeral_count}"
            return f"paperbot, only visible to you{note}", ts, True, channel
        if call.method == "chat.update":
            return "paperbot updated a message", str(call.args.get("ts")), False, channel
        if call.method == "views.publish":
            return "your App Home tab", "home", False, channel
        if call.method == "views.open":
            return "a window over Slack", "modal", False, channel
        return None


def _wire_text(typed: str) -> str:
    """A typed message as Slack sends it: ``& < >`` escaped, URLs in ``<…>``."""
    return _URL.sub(_wire_link, escape_mrkdwn(typed))


def _wire_link(match: re.Match[str]) -> str:
    url = match[0].rstrip(_URL_END)
    return f"<{url}>{match[0][len(url) :]}"


def _unfurls_here(link: str) -> bool:
    """Whether Slack sends ``link_shared`` for the link: the app's unfurl domains are
    OpenReview's and arXiv's."""
    return is_paper_site(unescape_mrkdwn(link))


def _meant(word: str, rest: str) -> str | None:
    """The line a mistyped one was meant to be: a shell word, ``/paper`` or ``@paperbot``
    with a typo, given what follows fits it (a number after ``sve``; nothing after ``mroe``).
    None when the line reads as a message for #research.

    A lone word is also caught by the rule ``/paper`` has for its commands
    (``bot.answers.typed``), so that ``nwe`` is asked about as ``/paper nwe`` is: a short
    word's slips (two letters swapped, one doubled) that are no English word, which the
    likeness of longer words misses. A word followed by others is a sentence posted in
    #research, never a typo: ``nwe results`` is a message."""
    lowered, arguments = word.lower(), rest.split()
    if lowered.startswith("/"):
        candidates = [COMMAND]
    elif lowered.startswith("@"):
        candidates = [BOT_NAME]
    elif len(arguments) == 1 and ascii_count(arguments[0]) is not None:
        candidates = list(_NUMBERED)
    elif len(arguments) == 2 and ascii_count(arguments[0]) is not None:
        candidates = [REACT]
    elif not arguments:
        candidates = [MORE, FOR_YOU, "home", SOURCES, NEW, "help", "quit"]
        slash = parse_command(word)
        if slash.intent is Intent.MISTYPED and slash.argument in candidates:
            return slash.argument
    else:
        return None
    close = difflib.get_close_matches(lowered, candidates, n=1, cutoff=_TYPO_CUTOFF)
    return " ".join([close[0], *arguments]) if close else None


def _paper_ids(links: Sequence[str]) -> list[str]:
    """The paper ids the links name (``links``: those on OpenReview or arXiv), for why they
    got no preview card."""
    return [paper_id for link in links if (paper_id := linked_paper_id(unescape_mrkdwn(link)))]


def _is_save(shown: _Shown) -> bool:
    return shown.button["action_id"] in {render_papers.ACTION_SAVE, render_papers.ACTION_UNSAVE}


def main(argv: Sequence[str], settings: Settings, *, out: TextIO | None = None) -> int:
    """Run the shell; ``--once TEXT`` prints one exchange and exits."""
    out = out or sys.stdout
    parser = ArgumentParser(prog=f"{program()} shell")
    parser.add_argument("--once", metavar="TEXT", help="send one line, print the answer, exit")
    args = parser.parse_args(list(argv))
    if args.once is not None and not args.once.strip():
        parser.error(f"--once expects the line to send, as typed at the prompt: --once '{EXAMPLE}'")
    with contextlib.ExitStack() as stack:
        log_note = None
        if args.once is None:
            log_note = stack.enter_context(logs_in_file(settings, log_file_path()))
        recorder = stack.enter_context(SlackRecorder(first_ts=time.time()))
        client = make_web_client(SHELL_TOKEN, recorder.base_url)
        try:
            services = build_services(settings, client)
        except CorpusError as error:
            print(f"paperbot: {error}", file=sys.stderr)
            return 2
        stack.callback(services.close)
        shell = Shell(services, recorder, client)
        if args.once is not None:
            out.write(f"{PROMPT}{args.once}\n{shell.handle(args.once)}")
            return 0
        corpus = services.corpus
        assert corpus is not None  # loaded by build_services
        out.write(paragraph(f"paperbot shell: {corpus.description}. Type help.") + "\n")
        if services.answers.wider_corpus:
            note = render_papers.corpus_setting_note(len(corpus.papers), CATALOGUE_ACCEPTED_PAPERS)
            out.write(paragraph(terminal_text(note)) + "\n")
        out.write(paragraph(log_note) + "\n")
        console = stack.enter_context(Console(out))
        scheduler = _local_scheduler(shell, services, settings, console)
        if scheduler is not None:
            stack.callback(scheduler.stop)
        return _loop(shell, console)


def _local_scheduler(
    shell: Shell, services: Services, settings: Settings, console: Console
) -> DigestScheduler | None:
    """The paper of the day for the shell's own #research, printed when it is posted.

    Only that channel: the database may hold real channels' subscriptions (and
    ``PAPERBOT_DIGEST_CHANNEL``), whose posts the shell would claim, send to its fake Slack
    and so lose."""
    if not settings.scheduler_enabled:
        return None
    scheduler = DigestScheduler(
        services.digest,
        channels={shell.workspace.channel_id},
        on_outcome=lambda _outcome: console.post(shell.news()),
    )
    scheduler.start()
    return scheduler


def _loop(shell: Shell, console: Console) -> int:
    """Prompt and answer until ``quit`` or end of input."""
    while True:
        console.write(shell.news())
        try:
            line = console.read_line()
        except (EOFError, KeyboardInterrupt):
            return 0
        if line.strip().lower() in {"quit", "exit"}:
            return 0
        console.write(shell.handle(line))
