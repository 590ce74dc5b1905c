"""Pure functions from papers and results to Slack messages and terminal text."""
