"""Getting a message to Slack: the one retry policy for Slack calls (``retry``) and the one
"did my post land?" check (``landed``).

Both are written on ``slack_sdk``'s terms alone, so that every sender may use them: the Web
API client (``bot.slack.client``), ``respond()`` (``bot.slack.respond``), a mention's reply
(``bot.slack.conversations``) and the daily post (``bot.digest.posting``), which posts
through the client it is handed and may not import the Slack adapter.
"""
