"""`a2a-lab record BASE_URL --out scenarios/NAME.yaml`: capture a live server into a scenario file that replays it.

Exit codes: 0 written; 1 the server could not be recorded (an interface gave no answer); 2 unusable input (no card,
not a URL, the file exists without --force); 3 internal error. Nothing is written unless everything succeeded.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.options import add_answer_timeout, add_live_target
from a2a_lab.harness.cli.outputs import output_file
from a2a_lab.harness.clients.refclient.options import DEFAULT_TEXT
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import crashed, refuse, say


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_live_target(p, optional=True)
    p.add_argument(
        "--from-har",
        type=Path,
        metavar="FILE.har",
        help="instead of a live server: a HAR capture of a client's session (devtools, mitmproxy, Charles)",
    )
    p.add_argument(
        "--out",
        type=output_file,
        required=True,
        metavar="FILE.yaml",
        help="the scenario file to write (serve it with `a2a-lab serve FILE.yaml`)",
    )
    p.add_argument("--text", default=DEFAULT_TEXT, help=f"the message to send (default {DEFAULT_TEXT!r})")
    p.add_argument(
        "--keep-origin",
        action="store_true",
        help="keep the card's bytes untouched (its URLs keep naming the recorded server)",
    )
    p.add_argument("--force", action="store_true", help="overwrite FILE.yaml if it exists")
    add_answer_timeout(p)


def cmd_record(args: argparse.Namespace) -> int:
    from a2a_lab.harness.common.scenario_writer import RecordError, render, write
    from a2a_lab.harness.server_judging.record.capture import capture
    from a2a_lab.harness.server_judging.record.scenario_file import document

    out: Path = args.out
    if out.exists() and not args.force:
        return refuse(f"{out} exists; give --force to overwrite it")
    if (args.target is None) == (args.from_har is None):
        return refuse("give the server's BASE_URL, or --from-har FILE.har (one of them)")
    if args.from_har is not None:
        return from_har(args.from_har, out, args.force)
    if args.timeout <= 0:
        return refuse("--timeout must be positive")
    try:
        cap = capture(args.target, args.text, args.timeout)
        write(out, render(document(cap, args.keep_origin, args.text), out), args.force)
    except RecordError as exc:
        say(f"nothing written: {exc}")
        return Exit.USAGE if exc.usage else Exit.FAILED
    except Exception as exc:
        return crashed("nothing written: record error", exc)
    say(f"recorded {cap.card_url} ({len(cap.exchanges)} exchange(s)) to {out}; replay with: a2a-lab serve {out}")
    return Exit.OK


def from_har(har: Path, out: Path, force: bool) -> int:
    """`record --from-har`: the capture read into a proxy session's journal, written as the proxy's --out is."""
    from a2a_lab.harness.proxy import capture as proxied
    from a2a_lab.harness.proxy.har import HarError, read

    try:
        session = read(har)
        written = proxied.write_scenario(session.state, out, force, session.pacing.note)
    except (HarError, proxied.CaptureError) as exc:
        say(f"nothing written: {exc}")
        return Exit.USAGE
    except Exception as exc:
        return crashed("nothing written: record error", exc)
    say(f"recorded {written} answer(s) from {har} to {out}; replay with: a2a-lab serve {out}")
    return Exit.OK


COMMAND = Command(
    "record",
    "capture a live server's card and answers into a scenario file that replays them",
    add_arguments,
    cmd_record,
    examples=(
        "a2a-lab record https://agent.example --out ci/vendor-x.yaml",
        "a2a-lab record --from-har session.har --out ci/vendor-x.yaml      # a capture from devtools or mitmproxy",
        "a2a-lab run --client ./bin/client --scenario ci/vendor-x.yaml     # then score a client against it",
    ),
    exit_codes=(
        (Exit.OK, "the file was written"),
        (Exit.FAILED, "the server could not be recorded"),
        (
            Exit.USAGE,
            "usage error: not a URL, a file that exists (without --force), an --out path that cannot be written, a "
            "HAR without A2A",
        ),
    ),
)
