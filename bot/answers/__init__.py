"""What the bot says back: requests in, rendered messages out.

The Slack listeners stay thin by delegating here: this package decides which search to run,
which page to show, and what state to remember for "Next 5" and "@paperbot more"; the
renderer decides how it looks. It knows nothing about Bolt or HTTP, so every answer the bot
can give is testable as a plain function call. ``Answers`` is the one object listeners ask;
it hands each request to the module of its feature.
"""

from bot.answers.home import HomeClick
from bot.answers.reading_list import Export
from bot.answers.router import Answers
from bot.answers.signals import Reaction
from bot.answers.threads import DM_THREAD
from bot.answers.viewer import Viewer

__all__ = [
    "DM_THREAD",
    "Answers",
    "Export",
    "HomeClick",
    "Reaction",
    "Viewer",
]
