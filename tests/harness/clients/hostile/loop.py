"""Any hostile client of this folder as a loop client: `loop.py NAME.py` runs NAME.py (as its own `__main__`) once per
scenario line, with the line's variables in its environment and the card URL as its argument, and answers
`a2a-lab: done N` (N: its exit code)."""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

script = str(Path(__file__).with_name(sys.argv[1]))
for line in sys.stdin:
    fields = json.loads(line)
    os.environ.update(fields)
    sys.argv = [script, fields["A2A_LAB_CARD_URL"]]  # as a client process gets it: the card URL last
    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    print(f"a2a-lab: done {code}", flush=True)
