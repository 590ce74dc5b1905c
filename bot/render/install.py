"""The web pages of installing paperbot in a workspace ("Add to Slack"): the install page,
the page after it worked, and the page that says why it did not.

Each is a whole HTML document with its style inline (no file to serve, nothing fetched from
elsewhere); every text in it is escaped here.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

INSTALL_FAILED_REASONS = {
    "access_denied": (
        "You cancelled the install",
        "paperbot was not added: you chose not to allow it on Slack's page.",
    ),
    "invalid_browser": (
        "This install could not be verified",
        "The page Slack sent you back to does not match the install this browser started: "
        "its link was changed, the install began in another browser, or this browser "
        "blocks cookies for this site.",
    ),
    "invalid_state": (
        "This install link has expired",
        "Install links work once and for ten minutes, and this one is used up or too old.",
    ),
    "missing_code": (
        "Slack did not say the install was allowed",
        "The page Slack sent you back to was incomplete.",
    ),
    "invalid_code": (
        "Slack did not confirm the install",
        "Slack refused to hand over paperbot's access to your workspace. This happens when "
        "the same link is used twice or the app's settings are changing.",
    ),
    "storage_error": (
        "paperbot could not save the install",
        "Slack allowed it, but paperbot's records could not be reached just now.",
    ),
}
"""What each failure of Slack's OAuth flow (Bolt's ``FailureArgs.reason``) means to the
person installing: a title and what happened."""
_UNKNOWN_FAILURE = (
    "The install did not finish",
    "Something went wrong between Slack and paperbot.",
)

_STYLE = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; align-items: center;
  justify-content: center; background: linear-gradient(160deg, #1d3557 0%, #274c77 100%);
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue",
  Arial, sans-serif; color: #1d1c1d; }
main { background: #fff; border-radius: 14px; box-shadow: 0 18px 50px rgba(0,0,0,.25);
  max-width: 34rem; width: calc(100% - 2rem); padding: 2.5rem 2.5rem 2rem; }
.mark { width: 3rem; height: 3rem; border-radius: 12px; background: #1d3557; color: #fff;
  display: flex; align-items: center; justify-content: center; font-size: 1.6rem;
  font-weight: 700; margin-bottom: 1.25rem; }
.mark.ok { background: #2eb67d; }
.mark.bad { background: #e01e5a; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 .75rem; }
p { font-size: 1rem; line-height: 1.55; margin: 0 0 1rem; color: #454245; }
ul { padding-left: 1.2rem; margin: 0 0 1.5rem; color: #454245; line-height: 1.6; }
code { background: #f4f4f4; border-radius: 4px; padding: .1rem .35rem; font-size: .95em; }
.button { display: inline-flex; align-items: center; gap: .6rem; background: #4a154b;
  color: #fff; text-decoration: none; font-weight: 700; font-size: 1rem;
  padding: .8rem 1.4rem; border-radius: 8px; }
.button:hover { background: #611f69; }
.button.secondary { background: #fff; color: #1d1c1d; border: 1px solid #bbb; }
.fine { font-size: .85rem; color: #616061; margin-top: 1.5rem; }
"""

_SLACK_LOGO = (
    '<svg aria-hidden="true" width="20" height="20" viewBox="0 0 122.8 122.8">'
    '<path fill="#e01e5a" d="M25.8 77.6a12.9 12.9 0 1 1-12.9-12.9h12.9zm6.5 0a12.9 12.9 0 0 1 '
    '25.8 0v32.3a12.9 12.9 0 1 1-25.8 0z"/><path fill="#36c5f0" d="M45.2 25.8a12.9 12.9 0 1 1 '
    '12.9-12.9v12.9zm0 6.5a12.9 12.9 0 0 1 0 25.8H12.9a12.9 12.9 0 1 1 0-25.8z"/>'
    '<path fill="#2eb67d" d="M97 45.2a12.9 12.9 0 1 1 12.9 12.9H97zm-6.5 0a12.9 12.9 0 0 1-25.8 '
    '0V12.9a12.9 12.9 0 1 1 25.8 0z"/><path fill="#ecb22e" d="M77.6 97a12.9 12.9 0 1 1-12.9 '
    '12.9V97zm0-6.5a12.9 12.9 0 0 1 0-25.8h32.3a12.9 12.9 0 1 1 0 25.8z"/></svg>'
)


def _page(title: str, mark: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · paperbot</title><style>{_STYLE}</style></head>"
        f"<body><main>{mark}{body}</main></body></html>\n"
    )


def install_page(authorize_url: str) -> str:
    """The page that starts an install: what paperbot does, and the "Add to Slack" button
    that leads to Slack's own page, where the person picks a workspace and allows it."""
    body = (
        "<h1>Bring paperbot to your workspace</h1>"
        "<p>paperbot finds ICLR 2025 papers without anyone leaving Slack.</p>"
        "<ul>"
        "<li>Search with <code>/paper</code>, or ask it in a thread</li>"
        "<li>A paper of the day, or a weekly digest, in the channels you choose</li>"
        "<li>A reading list for each person, and previews of OpenReview links</li>"
        "</ul>"
        f'<a class="button" id="add-to-slack" href="{escape(authorize_url)}">'
        f"{_SLACK_LOGO}<span>Add to Slack</span></a>"
        '<p class="fine">Slack will ask which workspace to add paperbot to and show what it '
        "may do there. You can remove it at any time from the workspace's app settings.</p>"
    )
    return _page("Add paperbot to Slack", '<div class="mark">p</div>', body)


def installed_page(team_name: str | None, open_url: str | None) -> str:
    """The page after a successful install: where paperbot now is, how to start, and a
    button back into Slack when the workspace is known."""
    where = f"to {escape(team_name)}" if team_name else "to your workspace"
    button = (
        f'<a class="button" id="open-slack" href="{escape(open_url)}">'
        f"{_SLACK_LOGO}<span>Open Slack</span></a>"
        if open_url
        else ""
    )
    body = (
        f"<h1>paperbot is added {where}</h1>"
        "<p>Type <code>/paper help</code> in any channel to see what it can do, or "
        "<code>/paper subscribe</code> in a channel for a paper of the day. Invite it to a "
        "private channel with <code>/invite @paperbot</code> first.</p>"
        f"{button}"
        '<p class="fine">You can close this page.</p>'
    )
    return _page("paperbot is installed", '<div class="mark ok">✓</div>', body)


def install_failed_page(reason: str, install_path: str) -> str:
    """The page when an install did not finish: what happened, that nothing was added, and
    the way to start again."""
    title, what = INSTALL_FAILED_REASONS.get(reason, _UNKNOWN_FAILURE)
    body = (
        f"<h1>{escape(title)}</h1>"
        f"<p>{escape(what)} Nothing was added to your workspace.</p>"
        f'<a class="button secondary" id="try-again" href="{escape(install_path)}">'
        "Start the install again</a>"
        '<p class="fine">If it keeps failing, tell whoever runs paperbot: its log says '
        "what Slack answered.</p>"
    )
    return _page(title, '<div class="mark bad">!</div>', body)


def open_in_slack_url(app_id: str | None, team_id: str | None) -> str | None:
    """Slack's link that opens the app in the workspace it was just added to."""
    if not app_id or not team_id:
        return None
    return f"https://slack.com/app_redirect?app={quote(app_id)}&team={quote(team_id)}"


def not_installed_reply() -> str:
    """What a person hears from a request Slack sent from a workspace that paperbot has no
    installation for (it was removed, or its install was lost)."""
    return (
        "paperbot is no longer installed in this workspace, so it cannot answer. "
        "Ask whoever added it to add it again."
    )
