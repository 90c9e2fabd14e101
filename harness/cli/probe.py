"""`a2a-lab probe BASE_URL`: the other direction — a2a-lab's reference client judges a server against its own card.

Exit codes are the harness's: 0 no FAIL, 1 a FAIL, 2 unusable input (no card), 3 internal error.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.help_text import gate_codes
from a2a_lab.harness.cli.options import add_answer_timeout, add_live_target, add_report_files, add_verbose, report_files
from a2a_lab.harness.common.messages import crashed, refuse, say
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.protocol.bindings import SHORT_NAMES

BINDINGS = ("jsonrpc", "http+json", "grpc")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_live_target(p)
    add_report_files(p, report_dir=False)
    p.add_argument("--binding", choices=BINDINGS, help="probe only the interfaces of this binding")
    p.add_argument(
        "--policy",
        choices=urlpolicy.POLICIES,
        help="the card's URL policy (default: lenient for a loopback target, strict otherwise)",
    )
    p.add_argument(
        "--token",
        help="a bearer or OAuth 2.0 access token, presented as the card's scheme says (Authorization: Bearer TOKEN)",
    )
    p.add_argument(
        "--api-key",
        metavar="NAME=VALUE",
        help="an API key: presented where the card's apiKey scheme named NAME says (header, query or cookie)",
    )
    p.add_argument(
        "--client-credentials",
        metavar="ID:SECRET",
        help="an OAuth 2.0 / OpenID Connect client: the probe obtains a token from the card's token endpoint",
    )
    add_answer_timeout(p)
    add_verbose(p)


def credentials_of(args: argparse.Namespace) -> dict[str, str]:
    """The credentials the command line gives (ValueError with a sentence for a malformed one)."""
    out: dict[str, str] = {}
    if args.api_key is not None:
        name, sep, value = args.api_key.partition("=")
        if not sep or not name or not value:
            raise ValueError("--api-key wants NAME=VALUE (the name the card's apiKey scheme declares)")
        out["apiKey"] = value
    if args.client_credentials is not None:
        cid, sep, secret = args.client_credentials.partition(":")
        if not sep or not cid or not secret:
            raise ValueError("--client-credentials wants ID:SECRET")
        out |= {"client_id": cid, "client_secret": secret}
    return out


def cmd_probe(args: argparse.Namespace) -> int:
    from a2a_lab.harness.cli.gate import conclude
    from a2a_lab.harness.server_judging.probe.definitions import PROBE_CHECKS
    from a2a_lab.harness.server_judging.probe.runner import NothingToProbe, ProbeOptions, probe

    if args.timeout <= 0:
        return refuse("--timeout must be positive")
    try:
        credentials = credentials_of(args)
    except ValueError as exc:
        return refuse(str(exc))
    options = ProbeOptions(
        binding=SHORT_NAMES[args.binding] if args.binding else None,
        policy=args.policy,
        timeout=args.timeout,
        token=args.token,
        credentials=credentials,
    )
    started = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        run = probe(args.target, options)
    except NothingToProbe as exc:
        return refuse(f"nothing to probe: {exc}")
    except Exception as exc:
        return crashed("probe error", exc)
    say(f"probed {run.card_url} ({len(run.results) - 1} interface(s), URL policy {run.policy})")
    meta = {
        "client": f"a2a-lab probe {run.target}",
        "probe": {"target": run.target, "card_url": run.card_url, "policy": run.policy},
        "started": started,
    }
    return conclude(
        run.results, run.probed, meta, report_files(args), verbose=args.verbose, quiet=args.quiet, checks=PROBE_CHECKS
    )


COMMAND = Command(
    "probe",
    "judge a live server against its own card: every interface a2a-lab speaks, with named checks",
    add_arguments,
    cmd_probe,
    examples=("a2a-lab probe http://127.0.0.1:8000 --json probe.json --html probe-report",),
    exit_codes=gate_codes(
        failed="checks failed, or an interface gave no answer",
        usage="usage error: a bad option, not a URL, no card at the target",
        harness="harness error (the probe itself failed)",
    ),
)
