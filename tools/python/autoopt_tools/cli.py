# cli.py: what every tool's command line shares: its errors and their exit statuses, the
# signals that stop a run, and stopping the jobs a tool started.
# SPDX-License-Identifier: GPL-2.0-or-later

import os
import signal
import subprocess
import sys

# The signals that stop a run: each raises Interrupted while catch_stop_signals() is in force.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class UsageError(Exception):
    """A bad option or argument: one line, exit status 2."""


class Interrupted(Exception):
    """A stop signal arrived; the tool exits with 128 + signum after cleaning up."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def catch_stop_signals():
    """From now on SIGINT, SIGTERM and SIGHUP raise Interrupted."""
    for s in STOP_SIGNALS:
        signal.signal(s, _raise_interrupted)


def ignore_stop_signals():
    """From now on the stop signals are ignored: while a tool cleans up, a second Ctrl-C must
    not stop the cleaning."""
    for s in STOP_SIGNALS:
        signal.signal(s, signal.SIG_IGN)


def help_or_version(arg, prog, version, manual):
    """The options every tool has: -h and --help print manual, --version prints "prog
    version"; both then exit with status 0.  Any other arg: nothing happens."""
    if arg in ("-h", "--help"):
        sys.stdout.write(manual)
        sys.exit(0)
    if arg == "--version":
        print(f"{prog} {version}")
        sys.exit(0)


def stop_group(proc, waits):
    """Stops proc and everything in its process group (a job started with
    start_new_session=True): SIGINT, SIGTERM, then SIGKILL, each followed by the wait in
    seconds that waits=(int, term, kill) gives it before the next.  Nothing when proc is None
    or has ended."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in zip((signal.SIGINT, signal.SIGTERM, signal.SIGKILL), waits):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass


def run(prog, main, argv, errors=()):
    """main(argv[1:])'s exit status, with the statuses all tools share: UsageError 2,
    Interrupted 128 + the signal, a closed output pipe 1, and for each (exception class,
    status, prefix) of errors that status; each error is one line "prog: [prefix]message" on
    standard error."""
    statuses = [(UsageError, 2, "")] + list(errors)
    try:
        return main(argv[1:])
    except Interrupted as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 128 + e.signum
    except BrokenPipeError:
        return 1
    except tuple(cls for cls, _, _ in statuses) as e:
        for cls, status, prefix in statuses:
            if isinstance(e, cls):
                print(f"{prog}: {prefix}{e}", file=sys.stderr)
                return status
        raise
