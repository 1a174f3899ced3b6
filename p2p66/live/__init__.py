"""Live matches: the session driven over real connections, for the UI, bots and commands."""
