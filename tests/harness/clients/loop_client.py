"""A loop-handshake client of the tests' own: fake_client.py's client run for each scenario line, in one process.

Usage: loop_client.py [--loop-defect NAME] [--on SCENARIO] [--pid-file F] [fake_client options ...]

Correct by default: for each line of stdin (the scenario's handshake variables) it replaces the A2A_LAB_* variables
of its environment with the line's, runs fake_client's main, and answers `a2a-lab: done N`. `--loop-defect` breaks
the handshake in the scenario `--on` names (every scenario without it); `--pid-file` gets a line with this process's
pid per scenario.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import threading
from pathlib import Path

LOOP_DEFECTS = (
    "exit-mid-line",  # writes half an answer line and exits 3
    "garbage",  # answers with a line that is no answer
    "never-answers",  # does the scenario, then never answers
    "answers-twice",  # answers, and answers again
    "crash",  # an uncaught exception (a stack trace) after its calls, before its answer
    "inline-result",  # correct: answers with the result object itself instead of the result file
    "talks-after-answer",  # correct, but writes to stderr after its answer
)
ANSWER = "a2a-lab: "

_spec = importlib.util.spec_from_file_location("fake_client", Path(__file__).with_name("fake_client.py"))
assert _spec is not None and _spec.loader is not None
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)


def answer(text: str) -> None:
    sys.stdout.write(ANSWER + text + "\n")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(prog="loop_client")
    parser.add_argument("--loop-defect", choices=LOOP_DEFECTS)
    parser.add_argument("--on", metavar="SCENARIO")
    parser.add_argument("--pid-file")
    args, rest = parser.parse_known_args()
    for line in sys.stdin:
        fields = json.loads(line)
        for name in [n for n in os.environ if n.startswith("A2A_LAB_") and n != "A2A_LAB_LOOP"]:
            del os.environ[name]
        os.environ.update(fields)
        if args.pid_file:
            with open(args.pid_file, "a", encoding="utf-8") as fh:
                fh.write(f"{os.getpid()}\n")
        defect = args.loop_defect if args.on in (None, fields["A2A_LAB_SCENARIO"]) else None
        code = fake.main([*rest, fields["A2A_LAB_CARD_URL"]])
        if defect == "crash":
            raise RuntimeError("loop_client: crashing on purpose before answering")
        if defect == "exit-mid-line":
            sys.stdout.write(ANSWER + "do")
            sys.stdout.flush()
            os._exit(3)
        elif defect == "garbage":
            answer("maybe later")
        elif defect == "never-answers":
            threading.Event().wait()
        elif defect == "answers-twice":
            sys.stdout.write(f"{ANSWER}done {code}\n{ANSWER}done {code}\n")  # one write: they arrive together
            sys.stdout.flush()
        elif defect == "inline-result":
            path = Path(fields["A2A_LAB_RESULT"])
            result = json.loads(path.read_text(encoding="utf-8"))
            path.unlink()
            answer(json.dumps(result))
        else:
            answer(f"done {code}")
            if defect == "talks-after-answer":
                print("loop_client: said after the answer", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
