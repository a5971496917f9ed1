# autoopt-validate: run real MPI programs under autoopt, unmodified, and compare with native.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bin/autoopt-validate runs run() (cmake/AotPythonTools.cmake).  Python 3 standard library
# only.  See autoopt-validate --help.

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

from . import cli, config, outfile
from .cli import Interrupted, UsageError
from .config import cores

PROG = "autoopt-validate"
VERSION = config.configured("VERSION")

TESTS_DIR = "/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests"
NETPIPE = "/usr/bin/NPmpich2"
SKIP = 77   # CTest SKIP_RETURN_CODE

# The collective algorithms, from autoopt's registry (collectives/coll_algorithms.def, read by
# CMake into _paths.py as "coll:name" words).  The fallback list is used only when the package
# runs unconfigured; a name the library does not know makes its configuration "n/a (rejected by
# the library)", not a failure.
def _algorithms():
    text = config.configured("COLL_ALGORITHMS").split()
    algs = {}
    for word in text:
        coll, _, name = word.partition(":")
        algs.setdefault(coll.upper(), []).append(name)
    if algs:
        return algs, "collectives/coll_algorithms.def"
    return ({"ALLREDUCE": ["recursive_doubling", "ring", "rabenseifner"],
             "BCAST": ["binomial", "scatter_allgather"], "REDUCE": ["binomial", "rabenseifner"],
             "BARRIER": ["dissemination", "recursive_doubling"]},
            "a built-in list (the registry was not found when the package was configured)")


COLLECTIVE_ALGORITHMS, ALGORITHMS_FROM = _algorithms()
# Collectives that the BLACS testers call (docs/platform.md): forced by default.
BLACS_COLLECTIVES = ("ALLREDUCE", "BCAST", "REDUCE", "BARRIER")

MANUAL = f"""\
NAME
    autoopt-validate - run real MPI programs under autoopt and compare them with native runs

SYNOPSIS
    autoopt-validate [--quick | --full] [--program LIST] [--config NAME:VAR=VAL,...]...
                     [--only-configs] [--strict] [--build DIR] [--lib FILE] [--yield-lib FILE]
                     [--timeout SECONDS] [--logs DIR] [--list]

DESCRIPTION
    Runs MPI programs that were written and built elsewhere, unmodified, natively and under
    autoopt (LD_PRELOAD=libautoopt.so) in several configurations, and compares what they
    report.  The programs:

    xCbtest, xFbtest
        The BLACS testers of Debian's scalapack-mpi-test (C and Fortran), run with 4 ranks
        from {TESTS_DIR}/BLACS, where their input files are.  They print 22 summary lines
        "... TESTS; N PASSED, M SKIPPED, K FAILED."; a configuration passes when all 22 lines
        equal the native run's.  Their exit status is 255 even on success (the run ends with a
        deliberate BLACS_ABORT test), so it is not used.
    netpipe
        NetPIPE ({NETPIPE}) in integrity mode, 2 ranks: "-u 65536 -i" sends 1 B..64 KiB
        messages and checks every byte.  Passes when every size passes the integrity check and
        the sizes equal the native run's.  Run in a temporary folder (NetPIPE writes np.out).

    The waiting policy is the same for every configuration, native included: the
    yield-when-idle library is preloaded exactly when a program's ranks outnumber the cores
    (4 BLACS ranks on a 2-core machine: yes; 2 NetPIPE ranks: no).

CONFIGURATIONS
    native       the baseline: no autoopt
    default      libautoopt.so with no AUTOOPT_* variable
    convert      AUTOOPT_CONVERT=1 AUTOOPT_CONVERT_MIN=0 (every eligible call converted)
    chains       AUTOOPT_CONVERT=1 AUTOOPT_CONVERT_MIN=0 AUTOOPT_CHAINS=1
    COLL-ALG     AUTOOPT_<COLL>=<alg>, one configuration per algorithm of every forced
                 collective (default: those the BLACS testers call, {', '.join(c.lower() for c in BLACS_COLLECTIVES)};
                 --collectives changes the list).  Algorithms, from
                 {ALGORITHMS_FROM}:
{chr(10).join(textwrap.fill(f"{c.lower()}: {', '.join(a)}", 92, initial_indent=" " * 17,
                            subsequent_indent=" " * 19) for c, a in COLLECTIVE_ALGORITHMS.items())}
                 NetPIPE calls no collective and skips these configurations.
    roundK       --quick instead forces every listed collective at once, round K to its
                 K-th algorithm (a shorter list repeats its last), so that every algorithm
                 runs once in as many configurations as the longest list has algorithms.
    A configuration whose run the library refuses (a line "autoopt...: ... unknown/invalid/
    not supported ..." naming one of its variables) is reported N/A, not FAIL.

OPTIONS
    --quick              CI subset: xCbtest and netpipe only, forced collectives in rounds;
                         the rounds run xCbtest on its collective part alone ("xCbtest-coll":
                         BSBR and COMB with topology ' ', the one BLACS maps onto MPI's
                         collectives; 17 summary lines), against a native run of that input
    --collectives LIST   comma-separated collectives to force (e.g. allreduce,bcast,alltoall)
    --full               also run the ScaLAPACK/PBLAS CTest suite of {TESTS_DIR}
                         (ctest in a temporary copy, MPIEXEC_PREFLAGS carrying LD_PRELOAD and
                         the configuration), natively and under default, convert, chains and
                         the --config configurations: long (tens of minutes per
                         configuration), not for CI
    --program LIST       comma-separated subset of xCbtest, xFbtest, netpipe
    --config NAME:VAR=VAL[,VAR=VAL...]
                         add a configuration (repeatable); VAR must start with AUTOOPT_
    --only-configs       run only the --config configurations (and native)
    --strict             count N/A configurations as failures
    --build DIR          build directory (DIR/src/libautoopt.so, DIR/tools/libautoopt-yield.so)
    --lib FILE           libautoopt.so (env AUTOOPT_LIB)
    --yield-lib FILE     yield-when-idle library (env AUTOOPT_YIELD_LIB)
    --timeout SECONDS    limit per run (default 600; the ctest suite: per test)
    --logs DIR           keep every run's output in DIR (created)
    --list               print the configurations and programs that would run, and exit
    -h, --help           this manual

EXIT STATUS
    0 every configuration matched the native baseline (N/A allowed unless --strict);
    1 a difference, a failed run or a broken baseline; 2 bad usage;
    77 libautoopt.so or a required program is missing (CTest skip); 130/143 interrupted.

EXAMPLES
    autoopt-validate --quick
    autoopt-validate --program xCbtest --config ring:AUTOOPT_ALLREDUCE=ring
    autoopt-validate --full --logs /tmp/validate-logs

SEE ALSO
    autoopt-bench(1), autoopt-netcluster(1), docs/benchmarks.md
"""


class Skip(Exception):
    pass


class ValidateError(Exception):
    """An input autoopt-validate cannot use (exit status 1, one line)."""


def info(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ options

def parse_config(text):
    if ":" not in text:
        raise UsageError(f"--config '{text}': expected NAME:VAR=VALUE[,VAR=VALUE...]")
    name, body = text.split(":", 1)
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", name) or name == "native":
        raise UsageError(f"--config '{text}': bad name '{name}' (letters, digits, _.+-; "
                         "not 'native')")
    env = {}
    for item in [x for x in body.split(",") if x]:
        m = re.fullmatch(r"(AUTOOPT_[A-Z0-9_]+)=(.*)", item)
        if not m:
            raise UsageError(f"--config '{text}': '{item}' is not AUTOOPT_VAR=VALUE")
        env[m.group(1)] = m.group(2)
    return {"name": name, "env": env, "kind": "user"}


def parse_args(argv):
    o = {"quick": False, "full": False, "programs": None, "configs": [], "only": False,
         "collectives": list(BLACS_COLLECTIVES),
         "strict": False, "build": None, "lib": None, "yield_lib": None, "timeout": 600.0,
         "logs": None, "list": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, val = (a.split("=", 1) + [None])[:2] if a.startswith("--") else (a, None)

        def value():
            nonlocal i
            if val is not None:
                i += 1
                return val
            if i + 1 >= len(argv):
                raise UsageError(f"option '{name}' needs a value")
            i += 2
            return argv[i - 1]

        cli.help_or_version(a, PROG, VERSION, MANUAL)
        if a in ("--quick", "--full", "--only-configs", "--strict", "--list"):
            o[{"--only-configs": "only"}.get(a, a[2:])] = True
            i += 1
        elif name == "--program":
            v = value()
            progs = [x for x in v.split(",") if x]
            for p in progs:
                if p not in ("xCbtest", "xFbtest", "netpipe"):
                    raise UsageError(f"--program '{p}': expected xCbtest, xFbtest or netpipe")
            if not progs:
                raise UsageError("--program '': empty list")
            o["programs"] = progs
        elif name == "--collectives":
            v = value()
            colls = [x.upper() for x in v.split(",") if x]
            for c in colls:
                if c not in COLLECTIVE_ALGORITHMS:
                    raise UsageError(f"--collectives '{c.lower()}': expected one of "
                                     + ", ".join(x.lower() for x in COLLECTIVE_ALGORITHMS))
            if not colls:
                raise UsageError("--collectives '': empty list")
            o["collectives"] = colls
        elif name == "--config":
            o["configs"].append(parse_config(value()))
        elif name in ("--build", "--logs"):
            v = value()
            if name == "--build" and not os.path.isdir(v):
                raise UsageError(f"--build '{v}': no such directory")
            if name == "--logs" and os.path.exists(v) and not os.path.isdir(v):
                raise UsageError(f"--logs '{v}': exists and is not a directory")
            o[name[2:]] = os.path.abspath(v)
        elif name in ("--lib", "--yield-lib"):
            v = value()
            if not os.path.isfile(v):
                raise UsageError(f"{name} '{v}': no such file")
            o[name[2:].replace("-", "_")] = os.path.abspath(v)
        elif name == "--timeout":
            v = value()
            try:
                o["timeout"] = float(v)
                if not 1 <= o["timeout"] <= 86400:
                    raise ValueError
            except ValueError:
                raise UsageError(f"--timeout '{v}': expected seconds 1..86400") from None
        else:
            raise UsageError(f"unknown option '{a}' (see {PROG} --help)")
    if o["quick"] and o["full"]:
        raise UsageError("--quick and --full exclude each other")
    names = [c["name"] for c in o["configs"]]
    if len(set(names)) != len(names):
        raise UsageError("--config: the same NAME given twice")
    return o


def configurations(o):
    cfgs = []
    if not o["only"]:
        cfgs += [{"name": "default", "env": {}, "kind": "p2p"},
                 {"name": "convert", "env": {"AUTOOPT_CONVERT": "1", "AUTOOPT_CONVERT_MIN": "0"},
                  "kind": "p2p"},
                 {"name": "chains", "env": {"AUTOOPT_CONVERT": "1", "AUTOOPT_CONVERT_MIN": "0",
                                            "AUTOOPT_CHAINS": "1"}, "kind": "p2p"}]
        colls = [c for c in o["collectives"] if COLLECTIVE_ALGORITHMS.get(c)]
        if o["quick"]:
            rounds = max((len(COLLECTIVE_ALGORITHMS[c]) for c in colls), default=0)
            for k in range(rounds):
                env = {f"AUTOOPT_{c}": COLLECTIVE_ALGORITHMS[c][min(k, len(COLLECTIVE_ALGORITHMS[c]) - 1)]
                       for c in colls}
                cfgs.append({"name": f"round{k + 1}", "env": env, "kind": "coll"})
        else:
            for coll in colls:
                for alg in COLLECTIVE_ALGORITHMS[coll]:
                    cfgs.append({"name": f"{coll.lower()}-{alg}",
                                 "env": {f"AUTOOPT_{coll}": alg}, "kind": "coll"})
    taken = {c["name"] for c in cfgs}
    for c in o["configs"]:
        if c["name"] in taken:
            cfgs = [x for x in cfgs if x["name"] != c["name"]]
        cfgs.append(c)
    return cfgs


# ------------------------------------------------------------------ programs

class Program:
    """One external program: how to run it and how to read its result.  kinds: the kinds of
    configuration it runs under (p2p, coll); lines: the BLACS summary lines of a sound native
    run (None: not a BLACS tester); prepare: makes the folder it runs in (None: cwd as is)."""

    def __init__(self, name, ranks, cwd, argv, parse, compare, kinds, lines=None, prepare=None):
        self.name, self.ranks, self.cwd, self.argv = name, ranks, cwd, argv
        self.parse, self.compare = parse, compare
        self.kinds, self.lines, self.prepare = kinds, lines, prepare


BLACS_LINE = re.compile(r"^\s*(.*?TESTS):\s*(\d+)\s+TESTS;\s*(\d+)\s+PASSED,\s*(\d+)\s+SKIPPED,"
                        r"\s*(\d+)\s+FAILED\.", re.M)


def parse_blacs(out, err):
    lines = [(m.group(1).strip(), int(m.group(2)), int(m.group(3)), int(m.group(4)),
              int(m.group(5))) for m in BLACS_LINE.finditer(out)]
    return {"lines": lines, "passed": sum(x[2] for x in lines),
            "failed": sum(x[4] for x in lines),
            "summary": f"{len(lines)} summary lines, {sum(x[2] for x in lines)} passed, "
                       f"{sum(x[3] for x in lines)} skipped, {sum(x[4] for x in lines)} failed"}


def compare_blacs(base, got):
    """Returns a list of differences (empty: same)."""
    diffs = []
    if len(got["lines"]) != len(base["lines"]):
        diffs.append(f"{len(got['lines'])} summary lines instead of {len(base['lines'])}")
    for b, g in zip(base["lines"], got["lines"]):
        if b != g:
            diffs.append(f"'{g[0]}': {g[2]} passed/{g[3]} skipped/{g[4]} failed, native "
                         f"{b[2]}/{b[3]}/{b[4]}")
    return diffs


NP_LINE = re.compile(r"^\s*\d+:\s+(\d+) bytes\s+\d+ times -->\s+Integrity check (passed|failed)",
                     re.M)


def parse_netpipe(out, err):
    both = out + "\n" + err
    rows = [(int(m.group(1)), m.group(2)) for m in NP_LINE.finditer(both)]
    passed = sum(1 for _, r in rows if r == "passed")
    return {"rows": rows, "passed": passed, "failed": len(rows) - passed,
            "summary": f"{len(rows)} sizes, {passed} passed the integrity check, "
                       f"{len(rows) - passed} failed"}


def compare_netpipe(base, got):
    diffs = []
    bad = [s for s, r in got["rows"] if r != "passed"]
    if bad:
        diffs.append(f"integrity check failed at {len(bad)} sizes (first {bad[0]} B)")
    if [s for s, _ in got["rows"]] != [s for s, _ in base["rows"]]:
        diffs.append(f"{len(got['rows'])} sizes instead of native's {len(base['rows'])}")
    return diffs


def blacs_collective_input(folder):
    """Writes into folder the BLACS tester's input for the collective configurations of
    --quick: Debian's bt.dat, bsbr.dat and comb.dat with the point-to-point (SDRV) and
    auxiliary (AUX) parts turned off and topology ' ' alone, the one BLACS maps onto MPI's own
    MPI_Bcast, MPI_Reduce and MPI_Allreduce (its other topologies are trees of point-to-point
    messages, which the collective configurations do not change).  The same shapes, scopes
    and precisions; 17 summary lines.  The tester reads them from the folder it runs in."""
    blacs = os.path.join(TESTS_DIR, "BLACS")

    def edit(name, change):
        path = os.path.join(blacs, name)
        with open(path) as f:
            lines = f.read().split("\n")
        done = change(lines)
        if not done:
            raise ValidateError(f"{path}: not the layout autoopt-validate --quick knows "
                                "(its collective input cannot be made from it)")
        with open(os.path.join(folder, name), "w") as f:
            f.write("\n".join(lines))

    def parts_off(lines):
        n = 0
        for i, l in enumerate(lines):
            if re.search(r"Run (SDRV|AUX)\?", l) and "'T'" in l:
                lines[i] = l.replace("'T'", "'F'", 1)
                n += 1
        return n == 2

    def one_topology(lines):
        for i, l in enumerate(lines[:-1]):
            if "Number of topologies" in l and lines[i + 1].rstrip().endswith("TOP"):
                lines[i] = "1" + " " * 23 + "Number of topologies"
                lines[i + 1] = "' '" + " " * 21 + "TOP"
                return True
        return False

    edit("bt.dat", parts_off)
    edit("bsbr.dat", one_topology)
    edit("comb.dat", one_topology)
    os.symlink(os.path.join(blacs, "sdrv.dat"), os.path.join(folder, "sdrv.dat"))


def programs(o):
    blacs = os.path.join(TESTS_DIR, "BLACS")
    both = ("p2p", "coll")
    all_progs = {
        "xCbtest": Program("xCbtest", 4, blacs, [os.path.join(blacs, "xCbtest")], parse_blacs,
                           compare_blacs, both, lines=22),
        "xFbtest": Program("xFbtest", 4, blacs, [os.path.join(blacs, "xFbtest")], parse_blacs,
                           compare_blacs, both, lines=22),
        "netpipe": Program("netpipe", 2, None, [NETPIPE, "-u", "65536", "-i"], parse_netpipe,
                           compare_netpipe, ("p2p",)),
    }
    names = o["programs"] or (["xCbtest", "netpipe"] if o["quick"]
                              else ["xCbtest", "xFbtest", "netpipe"])
    progs = [all_progs[n] for n in names]
    if o["quick"] and "xCbtest" in names:
        # The collective rounds run the tester on its collective part alone (a fifth of
        # its time), against a native run of the same input.
        all_progs["xCbtest"].kinds = ("p2p",)
        progs.insert(names.index("xCbtest") + 1, Program(
            "xCbtest-coll", 4, None, [os.path.join(blacs, "xCbtest")], parse_blacs, compare_blacs, ("coll",),
            lines=17, prepare=blacs_collective_input))
    return progs


# ------------------------------------------------------------------ running

class Runner:
    def __init__(self, o):
        self.o = o
        self.proc = None
        self.tmpdirs = []

    def preload(self, ranks, autoopt):
        libs = [self.o["lib_path"]] if autoopt else []
        if ranks > cores():
            libs.append(self.o["yield_path"])
        return libs

    def launch_argv(self, prog, cfg):
        autoopt = cfg is not None
        argv = [self.o["mpiexec"], "-n", str(prog.ranks)]
        for k, v in (cfg["env"].items() if cfg else ()):
            argv += ["-genv", k, v]
        libs = self.preload(prog.ranks, autoopt)
        if libs:
            argv += ["-genv", "LD_PRELOAD", ":".join(libs)]
        return argv + prog.argv

    def run(self, argv, cwd, env=None, timeout=None):
        """Runs argv in cwd (None: a private temporary folder, removed afterwards).
        Returns (status or None on timeout, stdout, stderr, seconds)."""
        tmp = None
        if cwd is None:
            tmp = tempfile.mkdtemp(prefix="autoopt-validate-")
            self.tmpdirs.append(tmp)
            cwd = tmp
        full_env = dict(os.environ)
        full_env.pop("LD_PRELOAD", None)
        full_env.update(env or {})
        t0 = time.monotonic()
        try:
            self.proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, env=full_env,
                                         start_new_session=True, errors="replace")
            try:
                out, err = self.proc.communicate(timeout=timeout or self.o["timeout"])
                status = self.proc.returncode
            except subprocess.TimeoutExpired:
                self.stop()
                out, err = self.proc.communicate()
                status = None
            self.proc = None
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
                self.tmpdirs.remove(tmp)
        return status, out, err, time.monotonic() - t0

    def stop(self):
        cli.stop_group(self.proc, (5.0, 3.0, 3.0))

    def cleanup(self):
        self.stop()
        for d in list(self.tmpdirs):
            shutil.rmtree(d, ignore_errors=True)
        self.tmpdirs = []


def rejected_by_library(cfg, err):
    """The library's line refusing one of cfg's variables, or None."""
    if not cfg or not cfg["env"]:
        pat = r"^autoopt(\[\d+\])?:.*\b(unknown|invalid|not supported|unsupported|expected)\b"
    else:
        names = "|".join(re.escape(k) for k in cfg["env"])
        pat = (r"^autoopt(\[\d+\])?:.*(" + names + r").*\b(unknown|invalid|not supported|"
               r"unsupported|not implemented|expected)\b")
    m = re.search(pat, err or "", re.M | re.I)
    return m.group(0).strip()[:200] if m else None


def save_log(o, name, argv, status, out, err):
    if not o["logs"]:
        return
    os.makedirs(o["logs"], exist_ok=True)
    with outfile.replacing(os.path.join(o["logs"], name + ".log")) as f:
        f.write("$ " + " ".join(shlex.quote(a) for a in argv) + f"\n# exit status {status}\n"
                f"--- stdout\n{out}\n--- stderr\n{err}\n")


# ------------------------------------------------------------------ the ScaLAPACK suite

def ctest_tree(runner):
    """A temporary copy of the installed test tree (links), so that ctest's Testing/ folder and
    the testers' output files land there and not in the system folder."""
    tmp = tempfile.mkdtemp(prefix="autoopt-validate-ctest-")
    runner.tmpdirs.append(tmp)
    for sub in ("", "PBLAS"):
        src = os.path.join(TESTS_DIR, sub)
        dst = os.path.join(tmp, sub)
        os.makedirs(dst, exist_ok=True)
        for e in os.listdir(src):
            if e == "CTestTestfile.cmake" or os.path.isdir(os.path.join(src, e)):
                continue
            os.symlink(os.path.join(src, e), os.path.join(dst, e))
        with open(os.path.join(src, "CTestTestfile.cmake")) as f:
            text = f.read()
        # Drop subdirectories that are not installed (LIN, EIG); the BLACS entries call a
        # build-time script that is not installed either (the testers run directly above).
        text = re.sub(r'^subdirs\("[^"]*"\)\s*$', "", text, flags=re.M)
        if sub == "":
            text += '\nsubdirs("PBLAS")\n'
        with open(os.path.join(dst, "CTestTestfile.cmake"), "w") as f:
            f.write(text)
    return tmp


CTEST_FAILED = re.compile(r"^\s*\d+\s+-\s+(\S+)\s+\((Failed|Timeout|SEGFAULT|Subprocess.*|"
                          r"Not Run|Exception.*)\)", re.M)
CTEST_TOTAL = re.compile(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)")


def run_ctest(o, runner, cfg):
    tree = ctest_tree(runner)
    try:
        libs = runner.preload(4, cfg is not None)
        pre = []
        for k, v in (cfg["env"].items() if cfg else ()):
            pre += ["-genv", k, v]
        if libs:
            pre += ["-genv", "LD_PRELOAD", ":".join(libs)]
        argv = ["ctest", "--timeout", str(int(o["timeout"])), "--output-on-failure"]
        status, out, err, secs = runner.run(argv, tree,
                                            env={"MPIEXEC_PREFLAGS": " ".join(pre)},
                                            timeout=o["timeout"] * 200)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        runner.tmpdirs.remove(tree)
    m = CTEST_TOTAL.search(out)
    failed = sorted({x.group(1) for x in CTEST_FAILED.finditer(out)})
    res = {"total": int(m.group(3)) if m else 0, "failed": failed,
           "summary": (f"{m.group(3)} tests, {int(m.group(3)) - int(m.group(2))} passed, "
                       f"{m.group(2)} failed" if m else "ctest printed no summary")}
    return status, out, err, secs, res


# ------------------------------------------------------------------ main

def main(argv):
    o = parse_args(argv)
    b = o["build"]
    o["lib_path"] = config.lookup("AUTOOPT_LIB", o["lib"], "AUTOOPT_LIB", b,
                                  os.path.join("src", "libautoopt.so"))
    o["yield_path"] = config.lookup("YIELD_LIB", o["yield_lib"], "AUTOOPT_YIELD_LIB", b,
                                    os.path.join("tools", "libautoopt-yield.so"))
    o["mpiexec"] = config.mpiexec_path()
    progs = programs(o)
    cfgs = configurations(o)
    if o["list"]:
        print("programs: " + ", ".join(p.name for p in progs) + (" + ScaLAPACK ctest suite"
                                                                  if o["full"] else ""))
        for c in [{"name": "native", "env": {}, "kind": "native"}] + cfgs:
            print(f"  {c['name']:<28} " + (" ".join(f"{k}={v}" for k, v in c["env"].items())
                                          or ("(no autoopt)" if c["kind"] == "native"
                                              else "(libautoopt.so, no AUTOOPT_* variable)"))
                  + "".join(f"   [skips {p.name}]" for p in progs
                      if c["kind"] != "native" and c["kind"] not in p.kinds))
        return 0

    # What the runs need; missing pieces skip (CTest SKIP_RETURN_CODE 77).
    if not shutil.which(o["mpiexec"]):
        raise Skip(f"MPICH launcher '{o['mpiexec']}' not found (Debian package mpich)")
    if not o["lib_path"] or not os.path.isfile(o["lib_path"]):
        raise Skip(f"libautoopt.so not built ('{o['lib_path']}'): nothing to validate")
    for p in progs:
        if not os.access(p.argv[0], os.X_OK):
            raise Skip(f"{p.argv[0]} is missing (Debian package "
                       f"{'netpipe-mpich2' if p.name == 'netpipe' else 'scalapack-mpi-test'})")
        if p.ranks > cores() and not os.path.isfile(o["yield_path"] or ""):
            raise Skip(f"the yield-when-idle library '{o['yield_path']}' is missing and "
                       f"{p.name} runs {p.ranks} ranks on {cores()} cores")
    if o["full"] and not shutil.which("ctest"):
        raise Skip("ctest not found (Debian package cmake)")

    cli.catch_stop_signals()
    runner = Runner(o)
    results = []     # (program, config, verdict, detail, seconds)
    for p in progs:
        if p.prepare:
            p.cwd = tempfile.mkdtemp(prefix=f"autoopt-validate-{p.name}-")
            runner.tmpdirs.append(p.cwd)
            p.prepare(p.cwd)
    plan = [(p, None) for p in progs] + [(p, c) for c in cfgs for p in progs
                                         if c["kind"] in p.kinds]
    if o["full"]:
        # The suite takes tens of minutes per configuration: the point-to-point ones and
        # --config ones only.
        plan += [("ctest", None)] + [("ctest", c) for c in cfgs if c["kind"] != "coll"]
    info(f"{len(plan)} runs: {', '.join(p.name for p in progs)}"
         + (" + ScaLAPACK ctest suite" if o["full"] else "") + f"; {len(cfgs)} autoopt "
         f"configurations against native; library {o['lib_path']}")
    for p in progs:
        info(f"waiting policy for {p.name} ({p.ranks} ranks, {cores()} cores): "
             + ("yield-when-idle in every configuration" if p.ranks > cores()
                else "busy polling (MPICH default) in every configuration"))
    baselines = {}
    interrupted = None
    try:
        for k, (p, cfg) in enumerate(plan):
            cname = cfg["name"] if cfg else "native"
            pname = p if isinstance(p, str) else p.name
            if pname in baselines and baselines[pname] is None:
                results.append((pname, cname, "SKIP", "no native baseline", 0.0))
                continue
            if p == "ctest":
                status, out, err, secs, res = run_ctest(o, runner, cfg)
                argv_run = ["ctest"]
            else:
                argv_run = runner.launch_argv(p, cfg)
                status, out, err, secs = runner.run(argv_run, p.cwd)
                res = p.parse(out, err)
            save_log(o, f"{pname}-{cname}", argv_run, status, out, err)
            if cfg is None:
                ok = ((p == "ctest" and res["total"] > 0)
                      or (p != "ctest" and p.lines and len(res["lines"]) == p.lines)
                      or (p != "ctest" and p.name == "netpipe" and res["rows"]
                          and res["failed"] == 0 and status == 0))
                verdict = "BASE" if ok else "FAIL"
                detail = res["summary"] + ("" if ok else
                                           (" (timeout)" if status is None else
                                            f" (exit status {status}): the native run is "
                                            "broken, nothing to compare with"))
                baselines[pname] = res if ok else None
            else:
                base = baselines[pname]
                if p == "ctest":
                    extra = sorted(set(res["failed"]) - set(base["failed"]))
                    diffs = ([f"{res['total']} tests instead of {base['total']}"]
                             if res["total"] != base["total"] else [])
                    diffs += [f"fails only under autoopt: {' '.join(extra)}"] if extra else []
                else:
                    diffs = p.compare(base, res)
                    if p.name == "netpipe" and status not in (0,):
                        diffs.append("timeout" if status is None else f"exit status {status}")
                reject = rejected_by_library(cfg, err)
                if diffs and reject:
                    verdict, detail = "N/A", f"rejected by the library: {reject}"
                elif diffs:
                    verdict = "FAIL"
                    detail = "; ".join(diffs[:3]) + (f" (+{len(diffs) - 3} more)"
                                                      if len(diffs) > 3 else "")
                    if status is None:
                        detail = f"timeout after {o['timeout']:g} s; " + detail
                else:
                    verdict, detail = "PASS", res["summary"] + ", same as native"
            results.append((pname, cname, verdict, detail, secs))
            info(f"[{k + 1}/{len(plan)}] {pname} {cname}: {verdict} ({secs:.1f} s) {detail}")
    except Interrupted as e:
        interrupted = e
        cli.ignore_stop_signals()
        info(f"{e}: stopping")
    finally:
        runner.cleanup()

    w = max([len("program")] + [len(r[0]) for r in results])
    print(f"{'program':<{w}} {'configuration':<28} {'result':<6} detail")
    for pname, cname, verdict, detail, secs in results:
        print(f"{pname:<{w}} {cname:<28} {verdict:<6} {detail}")
    count = {v: sum(1 for r in results if r[2] == v) for v in ("PASS", "FAIL", "N/A", "SKIP")}
    print(f"validate: {count['PASS']} passed, {count['FAIL']} failed, {count['N/A']} n/a "
          f"(rejected by the library), {count['SKIP']} skipped, against "
          f"{sum(1 for r in results if r[2] == 'BASE')} native baselines")
    if interrupted:
        return 128 + interrupted.signum
    if count["FAIL"] or (o["strict"] and count["N/A"]) or count["SKIP"]:
        return 1
    return 0


def run(argv):
    """The program's exit status (bin/autoopt-validate)."""
    return cli.run(PROG, main, argv, [(Skip, SKIP, "SKIP: "), (ValidateError, 1, "")])
