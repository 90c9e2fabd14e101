"""The harness's side of the loop handshake (`--client-mode loop`, contract/handshake.py): a client command started
once per worker and handed one scenario at a time on its stdin, answering each on its stdout.

Every per-scenario guarantee of a client process holds for a scenario's turn: the scenario's time limit (a client
that has not answered by then is killed, its process group with it, and the turn is a TIMEOUT), its output (what it
wrote on stdout and stderr between the scenario's line and its answer, bounded as process.Kept bounds it), how it
ended (a client that exits during a turn ends that scenario as a client process would: its exit code and its
stderr), and a fresh start for the next scenario after a crash, a hang or a broken answer. The client never sees
a2a-lab's own credentials: its environment is the same allow-list a client process gets (environment.py), and a
scenario's line carries only the handshake's variables.

Output a client writes after its answer, before the next scenario's line, belongs to the scenario it answered: it
is added to that scenario's ClientRun (`attach`), as is a second answer (which fails that scenario's result, and
restarts the client: it is out of step)."""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from a2a_lab.contract import handshake
from a2a_lab.harness.client_judging import process
from a2a_lab.harness.common.model import ClientRun

#: The longest answer line read (its result object is held to RESULT_LIMIT as a result file is).
ANSWER_LIMIT = 1024 * 1024 + 64
#: Once a client's stdout is closed, how long it may take to exit before the turn waits for it no more.
EXIT_GRACE_S = 2.0
CHUNK = 65536


@dataclass
class Turn:
    """How one scenario's turn ended: what a client process's run would show, and the answer (None: none came)."""

    finished: process.Finished
    answer: handshake.LoopAnswer | None = None
    #: Why the answer cannot be taken (a broken answer line, a second answer).
    answer_error: str | None = None


#: An answer line (what follows LOOP_ANSWER up to its newline), wherever a line starts.
_PREFIX = handshake.LOOP_ANSWER.encode()
_ANSWER_LINE = re.compile(rb"^" + re.escape(_PREFIX) + rb"([^\n]*)\n", re.MULTILINE)
#: What an answer's inline result object is called where it cannot be read (not A2A_LAB_RESULT: no file was written).
INLINE_RESULT = f"the result object of the loop answer ({handshake.LOOP_ANSWER}{{...}})"


class _Lines:
    """A client's stdout split into lines: answer lines apart, every other byte kept as the client's output.

    Linear in what comes: complete lines are searched for answer lines in one pass, and the runs of lines between them
    kept in one piece each (a flood of blank lines costs its bytes once, not a step per line). What is held is
    bounded: an unfinished line up to ANSWER_LIMIT, the first two answers of a turn (a second is all it takes to fail
    it), and the output as process.Kept keeps it."""

    def __init__(self) -> None:
        self.pending = b""
        self.answers: list[bytes] = []
        self.broken: str | None = None

    def feed(self, chunk: bytes, out: process.Kept) -> None:
        end = chunk.rfind(b"\n") + 1
        if end:
            block, self.pending = self.pending + chunk[:end], chunk[end:]
            self._complete(block, out)
        else:
            self.pending += chunk
        if len(self.pending) > ANSWER_LIMIT:
            if self.pending.startswith(_PREFIX):
                self.broken = f"the loop answer is longer than {ANSWER_LIMIT} bytes without a newline"
            out.add(self.pending)
            self.pending = b""

    def _complete(self, block: bytes, out: process.Kept) -> None:
        """Whole lines: each answer line taken apart, the output between them kept as it came."""
        if _PREFIX not in block:  # the usual case, at the speed of a byte search
            out.add(block)
            return
        start = 0
        for match in _ANSWER_LINE.finditer(block):
            if match.start() > start:
                out.add(block[start : match.start()])
            if len(self.answers) < 2:
                self.answers.append(match.group(1))
            start = match.end()
        if start < len(block):
            out.add(block[start:])

    def rest(self, out: process.Kept) -> None:
        """The client's stdout ended: a line it left unfinished is its output (an answer must end with a newline)."""
        if self.pending:
            out.add(self.pending)
            self.pending = b""


class LoopClient:
    """One worker's long-lived client: started on the first scenario, and again after it ended or was stopped."""

    def __init__(self, argv: list[str], env: dict[str, str], stopper: process.Stopper | None = None) -> None:
        self.argv = argv
        self.env = {**env, handshake.ENV_LOOP: "1"}
        self.stopper = stopper
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        #: The ClientRun of the scenario answered last: what the client writes before the next line belongs there.
        self.last: ClientRun | None = None
        self._lines = _Lines()

    # ------------------------------------------------------------------ the process

    def _start(self) -> str | None:
        try:
            self.proc = subprocess.Popen(
                self.argv,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            self.proc = None
            return f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
        self.starts += 1
        self._lines = _Lines()
        if self.stopper is not None and not self.stopper.enter(self.proc.pid):
            self.stop()
            return "the run was stopped"
        return None

    def stop(self) -> list[int]:
        """Kill the client and its process group (and whoever left the group keeping its output); the pids that had
        escaped."""
        proc, self.proc = self.proc, None
        if proc is None:
            return []
        process.kill_group(proc.pid, proc)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if self.stopper is not None:
            self.stopper.leave(proc.pid)
        pipes: list[IO[bytes]] = [p for p in (proc.stdout, proc.stderr) if p is not None]
        escaped = process.kill_escaped(pipes)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        return escaped

    def close(self) -> None:
        """The run is done: what the client wrote after its last answer goes to that scenario; then stop it."""
        self._between()
        self.stop()

    def _pending(self, fd: int) -> bytes:
        """What a pipe holds now, without waiting ("" at its end or when nothing is there)."""
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        data = b""
        try:
            while selector.select(0) and len(data) < 4 * CHUNK:
                chunk = os.read(fd, CHUNK)
                if not chunk:
                    break
                data += chunk
        finally:
            selector.close()
        return data

    def _between(self) -> None:
        """Before a scenario's line: what the client wrote since its last answer goes to that scenario; a client
        that ended since, or answered twice, is replaced."""
        proc = self.proc
        if proc is None:
            return
        assert proc.stdout is not None and proc.stderr is not None
        out, err = process.Kept(), process.Kept()
        self._lines.feed(self._pending(proc.stdout.fileno()), out)
        err.add(self._pending(proc.stderr.fileno()))
        ended = proc.poll() is not None
        extra = self._lines.answers
        if self.last is not None:
            if out.total:
                self.last.stdout_tail += out.text()
            if err.total:
                self.last.stderr_tail += err.text()
            if extra:
                self.last.result = None
                self.last.result_error = _twice(extra[0])
        if ended or extra:
            self.stop()

    # ------------------------------------------------------------------ a turn

    def turn(self, fields: dict[str, str], timeout: float, on_start: Callable[[int], None] | None = None) -> Turn:
        """Hand the client one scenario (its handshake variables) and wait, at most `timeout` s, for its answer.
        `on_start` is told the client's process group (schedule.Ticket.started)."""
        began = time.monotonic()
        if self.stopper is not None and self.stopper.stopped:
            return Turn(process.Finished(None, 0.0, False, "", "", interrupted=True))
        self._between()
        self.last = None
        if self.proc is None:
            problem = self._start()
            if problem is not None:
                interrupted = self.stopper is not None and self.stopper.stopped
                return Turn(process.Finished(None, 0.0, False, "", "", problem, interrupted=interrupted))
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        out, err = process.Kept(), process.Kept()
        if on_start is not None:
            on_start(proc.pid)
        try:
            proc.stdin.write(handshake.loop_line(fields))
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the client is gone: its end shows on its stdout
        return self._await(began, began + timeout, out, err)

    def _await(self, began: float, deadline: float, out: process.Kept, err: process.Kept) -> Turn:
        proc = self.proc
        assert proc is not None and proc.stdout is not None and proc.stderr is not None
        streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        selector = selectors.DefaultSelector()
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        lines, stdout_open = self._lines, True
        try:
            while not lines.answers and not lines.broken and stdout_open:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return self._timed_out(began, out, err)
                for key, _ in selector.select(remaining):
                    chunk = os.read(key.fd, CHUNK)
                    if not chunk:
                        selector.unregister(key.fd)
                        stdout_open = stdout_open and key.fd != proc.stdout.fileno()
                    elif key.fd == proc.stdout.fileno():
                        lines.feed(chunk, out)
                    else:
                        err.add(chunk)
        finally:
            selector.close()
        if not stdout_open and not lines.answers:
            return self._ended(began, deadline, out, err)
        err.add(self._pending(proc.stderr.fileno()))  # written before the answer: it is in the pipe already
        return self._answered(began, out, err)

    def _answered(self, began: float, out: process.Kept, err: process.Kept) -> Turn:
        lines = self._lines
        answers, lines.answers = lines.answers, []
        finished = process.Finished(0, time.monotonic() - began, False, out.text(), err.text())
        if lines.broken or len(answers) > 1:
            self.stop()
            why = lines.broken or _twice(answers[1])
            return Turn(finished, None, why)
        try:
            answer = handshake.parse_loop_answer(answers[0])
        except handshake.LoopAnswerError as exc:
            self.stop()
            return Turn(finished, None, str(exc))
        finished.exit_code = answer.exit_code
        return Turn(finished, answer)

    def _ended(self, began: float, deadline: float, out: process.Kept, err: process.Kept) -> Turn:
        """The client closed its stdout without answering: it ended (or is ending) during the scenario."""
        proc = self.proc
        assert proc is not None and proc.stderr is not None
        self._lines.rest(out)
        try:
            proc.wait(timeout=max(0.0, min(EXIT_GRACE_S, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            return self._timed_out(began, out, err)
        code = proc.returncode
        err.add(self._rest_of(proc.stderr.fileno(), deadline))
        interrupted = self.stopper is not None and self.stopper.stopped
        escaped = self.stop()
        stderr = err.text() + _escaped_note(escaped)
        finished = process.Finished(
            code, time.monotonic() - began, False, out.text(), stderr, escaped=escaped, interrupted=interrupted
        )
        return Turn(finished, None, None if interrupted else _unanswered(code))

    def _rest_of(self, fd: int, deadline: float) -> bytes:
        """What an ended client left in a pipe, up to its end (or the deadline: a descendant may hold it open)."""
        data = b""
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        try:
            stop = min(deadline, time.monotonic() + process.PIPE_GRACE_S)
            while (remaining := stop - time.monotonic()) > 0 and selector.select(remaining):
                chunk = os.read(fd, CHUNK)
                if not chunk:
                    break
                data += chunk
        finally:
            selector.close()
        return data

    def _timed_out(self, began: float, out: process.Kept, err: process.Kept) -> Turn:
        self._lines.rest(out)
        interrupted = self.stopper is not None and self.stopper.stopped
        escaped = self.stop()
        finished = process.Finished(
            None,
            time.monotonic() - began,
            not interrupted,
            out.text(),
            err.text() + _escaped_note(escaped),
            escaped=escaped,
            interrupted=interrupted,
        )
        return Turn(finished)


def _unanswered(code: int | None) -> str:
    return (
        f"the client ended (exit code {code}) without answering its scenario's line: a loop client answers each line "
        f"with one line ({handshake.LOOP_ANSWER}{handshake.LOOP_DONE}, or the result object) before it reads the next"
    )


def _twice(extra: bytes) -> str:
    shown = (handshake.LOOP_ANSWER.encode() + extra[:60]).decode("utf-8", "replace")
    return (
        f"the client answered the scenario twice (then {shown!r}): a loop client answers each scenario's line "
        "with exactly one line"
    )


def _escaped_note(escaped: list[int]) -> str:
    if not escaped:
        return ""
    return (
        f"\n[a2a-lab: killed {len(escaped)} process{'es' if len(escaped) > 1 else ''} that left the client's process "
        f"group but kept its output open: pid {', '.join(map(str, escaped))}]\n"
    )
