"""Sans-IO peer protocol: records in, events out; our moves in, records out."""
