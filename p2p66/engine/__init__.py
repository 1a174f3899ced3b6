"""Pure rules engine: no I/O, no randomness, no clocks."""
