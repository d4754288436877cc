"""Usage history: bytes each peer received and sent, per hour for 30 days and per day for a year (docs/usage.md)."""
