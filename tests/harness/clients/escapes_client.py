"""A client that writes terminal escapes on stderr and exits 1 before any request (issue 28, items 4 and 6): ANSI
colours, clear screen and cursor home, an OSC 0 window title, an OSC 8 hyperlink, BEL, the C1 control CSI (0x9b,
as a character and as a raw byte), NUL, DEL and a carriage return that would hide what came before it.

    python escapes_client.py CARD_URL

Like fake_client.py it imports nothing from a2a_lab.
"""

from __future__ import annotations

import sys

#: What it writes, line by line (as text: the raw byte 0x9b follows on a line of its own).
LINES = (
    "\x1b[31mred\x1b[0m and \x1b[2J\x1b[Hcleared",
    "\x1b]0;a window title\x07 \x1b]8;;http://link.invalid/\x1b\\a hyperlink\x1b]8;;\x1b\\",
    "bell\x07 csi\x9b31m nul\x00 del\x7f hidden\rshown",
)


def main() -> int:
    for line in LINES:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()
    sys.stderr.buffer.write(b"raw \x9b2J byte\n")
    sys.stderr.buffer.flush()
    return 1


if __name__ == "__main__":
    sys.exit(main())
