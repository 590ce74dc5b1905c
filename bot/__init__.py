"""paperbot: find and discuss ICLR 2025 papers from Slack."""
