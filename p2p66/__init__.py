"""p2p66: serverless, cheat-proof Sixty-Six and Schnapsen between two peers."""

__version__ = "0.1.0"
