"""Command line: the only layer that prints or reads a keyboard."""
