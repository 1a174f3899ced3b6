"""Replay files: signed hash-chained records, written as the game runs, verified by anyone."""
