"""Text from elsewhere, made safe for a terminal: it can show itself, never rewrite the screen.

Names, reasons and file paths come from peers and from files anyone can
edit. A control character (``\\r``, an escape sequence) or a bidirectional
override in them could move the cursor, erase a line or reorder what the
reader sees. ``printable`` writes every character Python does not count as
printable as a ``\\uXXXX`` escape, which is also a valid JSON escape, so the
same function guards plain text and pretty-printed JSON alike.
"""

from __future__ import annotations


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def printable(text: str) -> str:
    """``text`` with every non-printable character (newlines too) escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def printable_lines(text: str) -> str:
    """Each line of ``text`` made ``printable``; the line breaks themselves are kept."""
    return "\n".join(printable(line) for line in text.split("\n"))
