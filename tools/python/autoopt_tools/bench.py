# autoopt-bench: benchmark autoopt against native MPI and hand-optimized code.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bin/autoopt-bench runs run() (cmake/AotPythonTools.cmake).  Python 3 standard library, and
# matplotlib (python3-matplotlib) for the plots, which are skipped without it.  See
# autoopt-bench --help and docs/benchmarks.md.

import csv
import datetime
import importlib.util
import json
import math
import os
import random
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import time

from . import cli, config, outfile
from .cli import Interrupted, UsageError
from .config import cores

PROG = "autoopt-bench"
VERSION = config.configured("VERSION")

MANUAL = """\
NAME
    autoopt-bench - benchmark autoopt against native MPI and hand-optimized code

SYNOPSIS
    autoopt-bench [--quick] [--out DIR] [--platform LIST] [--example LIST] [--mode LIST]
                  [--reps N] [--sizes EXAMPLE=LIST] [--iters EXAMPLE=N] [--tuning FILE]
                  [--tune-budget SECONDS]
                  [--calibration PLATFORM=FILE] [--build DIR] [--lib FILE] [--examples DIR]
                  [--timeout SECONDS] [--wait-idle SECONDS] [--chains 1|unguarded] [--args EXAMPLE=TEMPLATE]
                  [--dry-run]

DESCRIPTION
    Runs a matrix of example programs x problem sizes x modes x platforms and reports the
    average iteration time each run prints (the avg_iter_us= field of its result line).

    For every (platform, example, size) the modes are interleaved, A B C A B C ..., over --reps
    repetitions (at least 5), so slow drifts of the machine hit every mode alike.  The report
    gives the median and the min-max range of the repetitions, and the ratio of each mode's
    median to native's and to the best hand-optimized variant's, the latter with its 95%
    bootstrap interval [lo-hi] (repetitions resampled as interleaved pairs): a goal such as
    "at most 1.03 x hand-written" is shown only when hi <= 1.03.  For the examples with
    exchange variants (sor, cg, multigrid, fft) each autoopt mode is
    also divided by the hand-written MPI_Isend program alone (x isend, with its interval), and
    a goal table for sor says for each size whether chains <= 1.03 x isend is shown (hi <=
    1.03), refuted (lo > 1.03) or undecided by the runs.

    A mode the library does not support yet shows "n/a" with the reason, never a number: the
    library is not built, the run failed or timed out, printed no result line, the library
    reported a variable or value it does not know, the result's checksum differs from the
    native run's, or (tuned) the tuning run failed.  Failing runs keep their output under
    DIR/logs/.

    Every compared mode runs with the same waiting policy: the yield-when-idle library
    (libautoopt-yield.so) is preloaded into every rank exactly when a platform's ranks
    outnumber the machine's cores (docs/platform.md, "More ranks than cores").  The report
    states the policy, the platform (with the emulated cluster's calibration) and whether the
    machine was idle before and after the runs (autoopt-netcluster idle; after the runs by the
    other runnable tasks only, since the runs themselves raised the load average); results
    measured on a busy machine are marked.

MODES
    native       plain MPICH, the example's blocking code (sor -m sendrecv, cg -m send,
                 multigrid -m sendrecv, fft -m alltoall)
    isend        hand-written non-blocking exchange (-m isend; sor, cg, multigrid and fft)
    overlap      hand-written full overlap of communication and computation (-m overlap;
                 sor and cg)
    passthrough  libautoopt.so preloaded with AUTOOPT_DISABLE=1 (the cost of interposition)
    default      libautoopt.so preloaded with no AUTOOPT_* variable: what a user gets
    paging       libautoopt.so with AUTOOPT_CONVERT=1 AUTOOPT_CHAINS=0 (asynchronous conversion
                 and page guards only)
    chains       libautoopt.so with AUTOOPT_CONVERT=1 AUTOOPT_CHAINS=1 (or --chains MODE)
    tuned        libautoopt.so with AUTOOPT_COLLECTIVES=1 and AUTOOPT_TUNING=FILE, the
                 tuning file autoopt-tune wrote for the platform (see TUNING) or the one
                 --tuning gives (autoopt's collective algorithms)
    online       libautoopt.so with AUTOOPT_COLLECTIVES=1, AUTOOPT_TUNE=online and
                 AUTOOPT_TUNING=none: algorithms chosen during the run (docs/online.md)
    turns        sor, cg, multigrid and fft: one job per repetition, with libautoopt.so as
                 in chains, running sor -m sendrecv,isend@pmpi,sendrecv@pmpi -b TURN (cg:
                 send,isend@pmpi,send@pmpi; multigrid as sor; fft:
                 alltoall,isend@pmpi,alltoall@pmpi).  The three exchanges take
                 turns of TURN = max(2, ITERS/200) iterations on the same data, ranks and
                 cores, each round in this order and the next in reverse: the blocking
                 code under autoopt chains (turns-chains), the hand-written MPI_Isend code
                 and the blocking code through PMPI_*, which autoopt does not intercept,
                 i.e. plain MPICH (turns-isend, turns-native).
                 With --chains default, turns-chains is autoopt's default configuration.
                 Each turn starts after a barrier and is timed alone (-t writes every
                 turn's time to DIR/turns/).  A job's ratio is the median over its turns of
                 one exchange's turn time divided by the reference's turn next to it; the
                 mode's ratio is the median over jobs, with a bootstrap interval over jobs.
                 The run-to-run swings of 4 ranks on 2 cores (15-30 %) then cancel, and a
                 scheduler stall of a few ms, which lands in one turn, moves no median.
    Default: native,isend,overlap,paging,chains,tuned.

PLATFORMS
    shm    one machine, shared memory, 4 ranks (mpiexec.mpich -n 4)
    net1   the emulated 100 Mbit/s cluster, 8 hosts with one rank each, one switch
    net2   the same with two switches of 4 hosts joined by a 100 Mbit/s uplink
    The emulated platforms need root (autoopt-netcluster check).  Before measuring them the
    harness calibrates each (autoopt-netcluster calibrate, about 20 s) unless --calibration
    gives a saved calibration; the report embeds it.  Default: shm,net1,net2 (--quick: shm).

TUNING
    When the modes include tuned and --tuning is not given, the harness runs autoopt-tune once
    per platform, just before that platform's first run, with the platform's ranks, launcher
    and waiting policy (on shm mpiexec.mpich -bind-to core, on net1/net2 autoopt-netcluster
    run, as the examples run there; the yield-when-idle library exactly when ranks outnumber
    cores).  It tunes the collectives the selected examples call in their timed loops, over
    the message sizes they use at the selected sizes (powers of two around the smallest and
    the largest message):
        sor           none worth tuning (a barrier and a reduction outside the loop): when
                      no selected example calls one, nothing is tuned and the tuned mode
                      runs every collective native
        bucket-sort   alltoall (one int per rank), alltoallv (the keys: 4n/p B blocks), allreduce (4-32 B)
        householder   bcast (n-j+1 doubles at step j), allreduce (n-j-1 doubles)
        cg            allreduce (the 64 chunk sums of a dot product, 512 B)
        multigrid     none (only point-to-point in the V-cycle)
        fft           alltoall (the transposes: n^3/p^2 complex doubles, 16 n^3/p^2 B per block)
    The run stops measuring after --tune-budget seconds (default 300 on shm, 1800 on net1 and
    net2; --quick 15) and writes DIR/tune-PLATFORM.tune, which the tuned mode of that platform
    uses; rules name an algorithm only where it was measured faster than native.  Its progress
    lines are shown as they come.  A tuning run that fails makes the platform's tuned mode
    n/a.  The report names the file, the command that wrote it and its rules.  --tuning FILE
    skips the tuning and uses FILE on every platform.

OPTIONS
    --quick              a smoke run for CI (under 3 minutes on shm): small sizes and
                         iteration counts, 5 repetitions
    --out DIR            output folder (created; default ./autoopt-bench-YYYYMMDD-HHMMSS)
    --platform LIST      comma-separated platforms (see PLATFORMS)
    --example LIST       comma-separated examples: sor, bucket-sort, householder, cg,
                         multigrid, fft
    --mode LIST          comma-separated modes (see MODES)
    --reps N             repetitions per mode (5..1000; default 5)
    --sizes EXAMPLE=LIST problem sizes of one example, e.g. sor=128,256,512: sor's grid
                         side (default 128,256,512,1024,2048), bucket-sort's keys per rank
                         (16384,65536,262144,1048576), householder's matrix order
                         (128,256,512,1024), cg's grid side (256,512,1024: n*n unknowns),
                         multigrid's cells per side (32,64,128), fft's points per side
                         (32,64,128: n^3 points)
    --iters EXAMPLE=N    iterations per run (default: sor max(100, min(5000, 2e8/n^2)),
                         bucket-sort 10, householder n-2 steps, cg max(100, min(2000,
                         1e8/n^2)), multigrid max(10, min(200, 2.6e7/n^3)) V-cycles, fft
                         max(4, min(200, 2.6e6/n^3)) transform pairs;
                         --quick: at most 50, 3, 16, 50, 10, 4)
    --args EXAMPLE=TEMPLATE
                         the example's arguments, with {n}, {iters} and {method} replaced
                         (defaults: sor, cg, multigrid and fft "-n {n} -i {iters} -m {method}",
                         bucket-sort "-k {n} -i {iters}", householder "-n {n} -k {iters}")
    --tuning FILE        tuning file for the tuned mode (AUTOOPT_TUNING) on every platform,
                         instead of tuning (see TUNING)
    --tune-budget SECONDS
                         measuring time of each platform's autoopt-tune run (1..86400;
                         default 300 on shm, 1800 on net1/net2, --quick 15)
    --calibration PLATFORM=FILE
                         use a saved calibration (autoopt-netcluster calibrate --save) for
                         net1 or net2 instead of measuring one
    --build DIR          build directory: DIR/src/libautoopt.so, DIR/tools/libautoopt-yield.so,
                         DIR/examples/, DIR/bin/autoopt-tune (default: the build this script
                         was configured in; autoopt-tune: the one next to this script)
    --lib FILE           libautoopt.so to preload (env AUTOOPT_LIB)
    --yield-lib FILE     the yield-when-idle library (env AUTOOPT_YIELD_LIB)
    --examples DIR       folder holding the example programs
    --timeout SECONDS    limit per run (default 300; --quick 60)
    --chains MODE        AUTOOPT_CHAINS of the chains and turns modes: 1 (default: the safe,
                         guarded chain mode), unguarded (the guard-free opt-in mode) or
                         default (neither AUTOOPT_CONVERT nor AUTOOPT_CHAINS set: the
                         library's default configuration)
    --wait-idle SECONDS  before measuring, wait up to SECONDS for the machine to become idle
                         (default 120; 0 checks once): after a build or a test run the
                         1-minute load average needs about a minute to fall
    --dry-run            print the commands instead of running them
    -h, --help           this manual

OUTPUT (in DIR)
    report.md            Markdown report: platform, policy, idle checks, calibration, the
                         SOR table in the layout of the seed's Table 1 (rows: native
                         MPI_Sendrecv, hand-written MPI_Isend, full overlap, autoopt paging,
                         autoopt chains; columns: n), and a table per example and platform
    summary.csv          one row per (platform, example, size, mode): median, min, max,
                         ratios, and for the tuned mode the tuning file it used
    runs.csv             one row per run
    EXAMPLE-PLATFORM.svg average iteration time against size, one line per mode, and the
    EXAMPLE-PLATFORM.png same as PNG (drawn with matplotlib; without python3-matplotlib
                         one warning line, no plots, and the report says so)
    calibration-*.json   the emulated cluster's calibrations
    tune-PLATFORM.tune   the tuning file autoopt-tune wrote for the platform's tuned mode;
    tune-PLATFORM.raw    its measurements (autoopt-tune --raw); earlier ones are replaced
    tune-PLATFORM.log    the tuning run's command and output
    logs/                output of runs that failed

EXIT STATUS
    0 the matrix ran (n/a entries are results, not errors); 1 nothing could be measured;
    2 bad usage; 77 no example program is built (CTest skip); 130/143 interrupted (the
    report holds what was measured).

EXAMPLES
    autoopt-bench --quick --platform shm --out /tmp/bench
    autoopt-bench --platform shm,net1,net2 --example sor --out results/sor
    autoopt-bench --mode native,paging --sizes sor=1024 --reps 9 --platform net1
    autoopt-bench --example bucket-sort --mode native,tuned --platform shm --tune-budget 120
    autoopt-bench --example cg,multigrid --mode native,isend,default,turns --chains default

SEE ALSO
    autoopt-netcluster(1), autoopt-tune(1), docs/benchmarks.md, docs/netcluster.md,
    docs/tuning.md
"""

EXAMPLES = ("sor", "bucket-sort", "householder", "cg", "multigrid", "fft")
MODES = ("native", "isend", "overlap", "passthrough", "default", "paging", "chains", "tuned",
         "online", "turns")
# The blocking exchange of the examples with exchange variants (-m), which native and the
# autoopt modes run, and the hand-written variants each has.
BLOCKING_METHOD = {"sor": "sendrecv", "cg": "send", "multigrid": "sendrecv", "fft": "alltoall"}
HAND_METHODS = {"sor": ("isend", "overlap"), "cg": ("isend", "overlap"),
                "multigrid": ("isend",), "fft": ("isend",)}
DEFAULT_MODES = ("native", "isend", "overlap", "paging", "chains", "tuned")
HAND_MODES = ("isend", "overlap")


def turn_results(example):
    """The turns mode runs one job and reports three results; cells and tables use these
    names: (cell mode, the example's -m method), the autoopt one last."""
    b = BLOCKING_METHOD[example]
    return (("turns-native", b + "@pmpi"), ("turns-isend", "isend@pmpi"), ("turns-chains", b))


def turn_method(example):
    """The -m list of a turns job: the blocking code under autoopt, then isend and the
    blocking code through PMPI_* (plain MPI)."""
    b = BLOCKING_METHOD[example]
    return f"{b},isend@pmpi,{b}@pmpi"


TURN_MODES = tuple(t for t, _ in turn_results("sor"))
PLATFORMS = {
    "shm": {"ranks": 4, "switches": 0,
            "describe": "one machine, shared memory (MPICH ch4:ucx default transports), 4 ranks"},
    "net1": {"ranks": 8, "switches": 1,
             "describe": "emulated cluster: 8 hosts x 1 rank, one 100 Mbit/s switch "
                         "(autoopt-netcluster, UCX_TLS=tcp,self)"},
    "net2": {"ranks": 8, "switches": 2,
             "describe": "emulated cluster: 8 hosts x 1 rank, two 100 Mbit/s switches of 4 "
                         "hosts joined by a 100 Mbit/s uplink (autoopt-netcluster)"},
}
DEFAULT_SIZES = {"sor": [128, 256, 512, 1024, 2048],
                 "bucket-sort": [16384, 65536, 262144, 1048576],
                 "householder": [128, 256, 512, 1024],
                 "cg": [256, 512, 1024], "multigrid": [32, 64, 128], "fft": [32, 64, 128]}
QUICK_SIZES = {"sor": [128, 256], "bucket-sort": [16384], "householder": [128], "cg": [128],
               "multigrid": [32], "fft": [32]}
# n is sor's grid side, bucket-sort's keys per rank, householder's matrix order, cg's grid
# side (n*n unknowns), multigrid's cells per side (n^3 cells), fft's points per side (n^3
# points); {iters} is householder's number of steps (-k), multigrid's V-cycles, fft's
# forward + inverse transform pairs.
DEFAULT_ARGS = {"sor": "-n {n} -i {iters} -m {method}",
                "bucket-sort": "-k {n} -i {iters}",
                "householder": "-n {n} -k {iters}",
                "cg": "-n {n} -i {iters} -m {method}",
                "multigrid": "-n {n} -i {iters} -m {method}",
                "fft": "-n {n} -i {iters} -m {method}"}
MODE_LABEL = {"native": "native", "isend": "hand: MPI_Isend", "overlap": "hand: full overlap",
              "passthrough": "autoopt pass-through",
              "default": "autoopt, default configuration", "paging": "autoopt paging",
              "chains": "autoopt chains", "tuned": "autoopt tuned collectives",
              "online": "autoopt online-tuned collectives",
              "turns-native": "native MPI_Sendrecv, turns in one job",
              "turns-isend": "hand: MPI_Isend, turns in one job",
              "turns-chains": "autoopt chains, turns in one job"}
TABLE1_ROWS = (("native", "native MPI_Sendrecv"), ("isend", "hand-written MPI_Isend"),
               ("overlap", "full overlap"), ("paging", "autoopt paging"),
               ("chains", "autoopt chains"),
               ("turns-native", "native MPI_Sendrecv (turns)"),
               ("turns-isend", "hand-written MPI_Isend (turns)"),
               ("turns-chains", "autoopt chains (turns)"))
TABLE1_SIZES = (128, 256, 512, 1024, 2048)
COLORS = {"native": "#222222", "isend": "#1f77b4", "overlap": "#17becf",
          "passthrough": "#7f7f7f", "default": "#8c8c00", "paging": "#d62728", "chains": "#ff7f0e", "tuned": "#2ca02c",
          "online": "#bcbd22",
          "turns-native": "#8c564b", "turns-isend": "#9467bd", "turns-chains": "#e377c2"}
# The collectives autoopt routes, in autoopt-tune's order (its --coll).
ROUTED = ("allreduce", "bcast", "reduce", "allgather", "allgatherv", "alltoall", "alltoallv",
          "barrier")
# A line of the library that says it does not support what the mode asked for.
LIB_REJECT_RE = re.compile(r"^autoopt(\[\d+\])?:.*\b(unknown|not supported|unsupported|"
                           r"not implemented|not available|invalid|expected)\b", re.I | re.M)


def info(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ options

# Options naming a file or a directory: option: (key in the options, "file" or "directory").
PATH_OPTIONS = {"--build": ("build", "directory"), "--lib": ("lib", "file"),
                "--yield-lib": ("yield_lib", "file"), "--examples": ("examples_dir", "directory")}


def parse_args(argv):
    o = {"quick": False, "out": None, "platforms": None, "examples": list(EXAMPLES),
         "modes": list(DEFAULT_MODES), "reps": 5, "sizes": {}, "iters": {}, "args": {},
         "tuning": None, "tune_budget": None, "calibration": {}, "build": None, "lib": None,
         "yield_lib": None, "examples_dir": None, "timeout": None, "wait_idle": 120.0,
         "dry_run": False, "chains": "1"}
    i = 0

    def value(name):
        nonlocal i
        if "=" in argv[i] and argv[i].startswith("--" + name.lstrip("-") + "="):
            v = argv[i].split("=", 1)[1]
            i += 1
            return v
        if i + 1 >= len(argv):
            raise UsageError(f"option '{name}' needs a value")
        v = argv[i + 1]
        i += 2
        return v

    def keyed(name, text):
        if "=" not in text:
            raise UsageError(f"{name} '{text}': expected EXAMPLE=VALUE")
        k, v = text.split("=", 1)
        return k, v

    def check_list(name, text, allowed):
        items = [x for x in text.split(",") if x]
        if not items:
            raise UsageError(f"{name} '{text}': empty list")
        for x in items:
            if x not in allowed:
                raise UsageError(f"{name} '{x}': expected one of {', '.join(allowed)}")
        return items

    def seconds(name, lo, hi):
        v = value(name)
        try:
            x = float(v)
            if not lo <= x <= hi:
                raise ValueError
        except ValueError:
            raise UsageError(f"{name} '{v}': expected seconds {lo}..{hi}") from None
        return x

    def check_example(name, k):
        if k not in EXAMPLES:
            raise UsageError(f"{name} '{k}': unknown example (expected one of "
                             f"{', '.join(EXAMPLES)})")

    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0]
        cli.help_or_version(a, PROG, VERSION, MANUAL)
        if a == "--quick":
            o["quick"] = True
            i += 1
        elif a == "--dry-run":
            o["dry_run"] = True
            i += 1
        elif name == "--out":
            o["out"] = value("--out")
        elif name == "--platform":
            o["platforms"] = check_list("--platform", value("--platform"), tuple(PLATFORMS))
        elif name == "--example":
            o["examples"] = check_list("--example", value("--example"), EXAMPLES)
        elif name == "--mode":
            o["modes"] = check_list("--mode", value("--mode"), MODES)
        elif name == "--reps":
            v = value("--reps")
            if not v.isdigit() or not 5 <= int(v) <= 1000:
                raise UsageError(f"--reps '{v}': expected an integer 5..1000 (at least 5 "
                                 "repetitions make a median)")
            o["reps"] = int(v)
        elif name == "--sizes":
            k, v = keyed("--sizes", value("--sizes"))
            check_example("--sizes", k)
            try:
                sizes = [int(x) for x in v.split(",") if x]
            except ValueError:
                raise UsageError(f"--sizes '{k}={v}': expected comma-separated integers") from None
            if not sizes or min(sizes) < 1:
                raise UsageError(f"--sizes '{k}={v}': expected positive integers")
            o["sizes"][k] = sizes
        elif name == "--iters":
            k, v = keyed("--iters", value("--iters"))
            check_example("--iters", k)
            if not v.isdigit() or int(v) < 1:
                raise UsageError(f"--iters '{k}={v}': expected a positive integer")
            o["iters"][k] = int(v)
        elif name == "--args":
            k, v = keyed("--args", value("--args"))
            check_example("--args", k)
            try:
                v.format(n=1, iters=1, method="sendrecv")
            except (KeyError, IndexError, ValueError) as e:
                raise UsageError(f"--args '{k}={v}': bad template ({e})") from None
            o["args"][k] = v
        elif name == "--tuning":
            v = value("--tuning")
            if not os.path.isfile(v):
                raise UsageError(f"--tuning '{v}': no such file")
            o["tuning"] = os.path.abspath(v)
        elif name == "--tune-budget":
            o["tune_budget"] = seconds("--tune-budget", 1, 86400)
        elif name == "--calibration":
            k, v = keyed("--calibration", value("--calibration"))
            if k not in ("net1", "net2"):
                raise UsageError(f"--calibration '{k}': expected net1=FILE or net2=FILE")
            try:
                with open(v) as f:
                    cal = json.load(f)
            except OSError as e:
                raise UsageError(f"--calibration '{v}': {e.strerror}") from None
            except ValueError:
                raise UsageError(f"--calibration '{v}': not a JSON calibration file") from None
            if cal.get("format") != "autoopt-netcluster-calibration":
                raise UsageError(f"--calibration '{v}': not written by autoopt-netcluster "
                                 "calibrate")
            o["calibration"][k] = os.path.abspath(v)
        elif name in PATH_OPTIONS:
            key, kind = PATH_OPTIONS[name]
            v = value(name)
            if not (os.path.isfile(v) if kind == "file" else os.path.isdir(v)):
                raise UsageError(f"{name} '{v}': no such {kind}")
            o[key] = os.path.abspath(v)
        elif name == "--wait-idle":
            o["wait_idle"] = seconds("--wait-idle", 0, 3600)
        elif name == "--chains":
            v = value("--chains")
            if v not in ("1", "unguarded", "default"):
                raise UsageError(f"--chains '{v}': expected 1, unguarded or default")
            o["chains"] = v
        elif name == "--timeout":
            o["timeout"] = seconds("--timeout", 1, 86400)
        else:
            raise UsageError(f"unknown option '{a}' (see {PROG} --help)")
    if o["platforms"] is None:
        o["platforms"] = ["shm"] if o["quick"] else ["shm", "net1", "net2"]
    if o["timeout"] is None:
        o["timeout"] = 60.0 if o["quick"] else 300.0
    if o["out"] is None:
        o["out"] = "autoopt-bench-" + time.strftime("%Y%m%d-%H%M%S")
    if os.path.exists(o["out"]) and not os.path.isdir(o["out"]):
        raise UsageError(f"--out '{o['out']}': exists and is not a directory")
    parent = os.path.dirname(os.path.abspath(o["out"]))
    if not os.path.isdir(parent):
        raise UsageError(f"--out '{o['out']}': folder {parent} does not exist")
    o["out"] = os.path.abspath(o["out"])
    for name in ("runs.csv", "summary.csv", "report.md"):   # the files written, before any work
        why = outfile.check(os.path.join(o["out"], name)) if os.path.isdir(o["out"]) else None
        if why:
            raise UsageError(f"--out {why}")
    return o


def resolve_paths(o):
    b = o["build"]
    o["lib_path"] = config.lookup("AUTOOPT_LIB", o["lib"], "AUTOOPT_LIB", b,
                                  os.path.join("src", "libautoopt.so"))
    o["yield_path"] = config.lookup("YIELD_LIB", o["yield_lib"], "AUTOOPT_YIELD_LIB", b,
                                    os.path.join("tools", "libautoopt-yield.so"))
    o["examples_path"] = config.lookup("EXAMPLES_DIR", o["examples_dir"], None, b, "examples")
    here = config.tool_dir()
    o["netcluster"] = os.path.join(here, "autoopt-netcluster")
    o["tune_path"] = os.path.join(b, "bin", "autoopt-tune") if b else os.path.join(here,
                                                                                  "autoopt-tune")
    o["mpiexec"] = config.mpiexec_path()


def iterations(o, example, n):
    if example in o["iters"]:
        return o["iters"][example]
    if example == "sor":
        # At least 100 iterations and about 2e8 point updates (0.1-0.5 s on shared memory):
        # shorter runs measure start-up (connections, chain learning: about 1 ms, once) and
        # scheduler noise.  The cap keeps net1 runs at small n to a few seconds.
        it = max(100, min(5000, int(2e8 / (n * n))))
        return min(it, 50) if o["quick"] else it
    if example == "householder":
        return min(n - 2, 16) if o["quick"] else n - 2
    if example == "cg":
        # about 1e8 matrix rows (6 entries each): 0.5-1.5 s on 4 ranks of shared memory
        it = max(100, min(2000, int(1e8 / (n * n))))
        return min(it, 50) if o["quick"] else it
    if example == "multigrid":
        # about 2.6e7 finest cells (a V-cycle costs some 8 sweeps of them): 1-2 s on shm
        it = max(10, min(200, int(2.6e7 / n ** 3)))
        return min(it, 10) if o["quick"] else it
    if example == "fft":
        # about 2.6e6 points per pair of transforms (n=64: 10 pairs, 0.3 s on 4 ranks of shm)
        it = max(4, min(200, int(2.6e6 / n ** 3)))
        return min(it, 4) if o["quick"] else it
    return 3 if o["quick"] else 10


def turn_length(iters):
    """Iterations per turn of the turns mode: about 200 turns per mode and job (at least 2
    iterations each): the more turns, the tighter the median of a job's turn ratios."""
    return max(2, iters // 200)


def collective_bytes(example, n, iters):
    """{collective: (smallest, largest bytes) or None} of the routed collectives an example
    calls in its timed loop at size n, bytes counted as tuning files count them
    (docs/tuning-format.md); None: one rule covers every size.  sor calls none there (a
    barrier before and a reduction of its time after)."""
    if example == "bucket-sort":
        # MPI_Alltoall of one int per rank, MPI_Alltoallv of the keys (its bytes: the mean
        # block, n ints over the ranks, here for 2 to 64 ranks), MPI_Allreduce of the four
        # uint64 totals; the check at the end reduces one int and one uint64
        return {"alltoall": (4, 4), "alltoallv": (max(1, 4 * n // 64), 4 * n // 2),
                "allreduce": (4, 32)}
    if example == "householder":
        # step j < iters: MPI_Bcast of n-j+1 doubles, MPI_Allreduce of n-j-1 doubles
        last = max(1, n - min(iters, n - 2))
        return {"bcast": (8 * (last + 1), 8 * (n + 1)), "allreduce": (8 * last, 8 * (n - 1))}
    if example == "cg":
        # two MPI_Allreduce of the 64 chunk sums of a dot product per iteration
        return {"allreduce": (512, 512)}
    if example == "fft":
        # two MPI_Alltoall per iteration, blocks of n^3/p^2 complex doubles (here for 2 to 64
        # ranks, as for bucket-sort)
        return {"alltoall": (max(1, 16 * n ** 3 // 64 ** 2), 16 * n ** 3 // 4)}
    return {}


def tuning_plan(o, plan, platform):
    """What the tuned mode's autoopt-tune run on platform measures, from the examples and sizes
    of the plan's tuned runs there: {"colls": [...], "sizes": "LO-HI", "users": {example:
    [collectives]}, "budget": seconds}, LO and HI the powers of two around the smallest and
    the largest message; None when none of those examples calls a routed collective."""
    users, lo, hi = {}, None, None
    for p, example, n, mode, rep in plan:
        if p != platform or mode != "tuned" or rep:
            continue
        for coll, span in collective_bytes(example, n, iterations(o, example, n)).items():
            if coll not in users.setdefault(example, []):
                users[example].append(coll)
            if span:
                lo = span[0] if lo is None else min(lo, span[0])
                hi = span[1] if hi is None else max(hi, span[1])
    users = {e: [c for c in ROUTED if c in cs] for e, cs in users.items() if cs}
    if not users:
        return None
    lo, hi = (1, 1) if lo is None else (lo, hi)
    budget = o["tune_budget"] or (15.0 if o["quick"] else 300.0 if platform == "shm" else 1800.0)
    return {"colls": [c for c in ROUTED if any(c in cs for cs in users.values())],
            "sizes": f"{1 << (lo.bit_length() - 1)}-{1 << (hi - 1).bit_length()}",
            "users": users, "budget": budget}


def tuning_files(o, platform):
    """{"tune", "raw", "log"}: the paths of the platform's tuning run's files in DIR."""
    return {k: os.path.join(o["out"], f"tune-{platform}.{k}") for k in ("tune", "raw", "log")}


def expand_modes(modes):
    """The modes as cells and tables know them: turns becomes its three results."""
    out = []
    for m in modes:
        out += list(TURN_MODES) if m == "turns" else [m]
    return out


def parse_turns(example, out):
    """{cell mode: avg_iter_us} of a turns job's 'EXAMPLE: turn mode=... avg_iter_us=' lines,
    and the checksum of its result line; None for a missing field."""
    got = {}
    for line in out.splitlines():
        if line.startswith(f"{example}: turn "):
            f = dict(re.findall(r"(\w+)=(\S+)", line))
            got[f.get("mode")] = f.get("avg_iter_us")
    res = {}
    for cell_mode, method in turn_results(example):
        try:
            res[cell_mode] = float(got[method])
        except (KeyError, TypeError, ValueError):
            res[cell_mode] = None
    m = re.search(rf"^{re.escape(example)}: .* checksum=(\S+)", out, re.M)
    return res, (m.group(1) if m else None)


# ------------------------------------------------------------------ running

class Runner:
    def __init__(self, o):
        self.o = o
        self.proc = None
        self.tuning = {}        # platform: the tuning file of its tuned mode (autoopt-tune's)

    def mode_env(self, mode, platform):
        """(environment for the ranks, preload autoopt?) of a mode on a platform."""
        if mode in ("native", "isend", "overlap"):
            return {}, False
        chains = ({} if self.o["chains"] == "default" else
                  {"AUTOOPT_CONVERT": "1", "AUTOOPT_CHAINS": self.o["chains"]})
        env = {"passthrough": {"AUTOOPT_DISABLE": "1"},
               "default": {},
               "paging": {"AUTOOPT_CONVERT": "1", "AUTOOPT_CHAINS": "0"},
               "chains": chains,
               "turns": chains,
               "tuned": {"AUTOOPT_COLLECTIVES": "1", "AUTOOPT_TUNE": "off"},
               "online": {"AUTOOPT_COLLECTIVES": "1", "AUTOOPT_TUNE": "online",
                          "AUTOOPT_TUNING": "none"}}[mode]
        tuning = self.o["tuning"] or self.tuning.get(platform)
        if mode == "tuned" and tuning:
            env["AUTOOPT_TUNING"] = tuning
        return dict(env), True

    def command(self, platform, example, n, mode, times=None):
        """The job's argv; times: the -t FILE of a turns job (per-turn times)."""
        o = self.o
        prog = os.path.join(o["examples_path"], example)
        method = mode if mode in HAND_MODES else BLOCKING_METHOD.get(example, "sendrecv")
        iters = iterations(o, example, n)
        if mode == "turns":
            method = turn_method(example)
        args = shlex.split(o["args"].get(example, DEFAULT_ARGS[example]).format(
            n=n, iters=iters, method=method))
        if mode == "turns":
            args += ["-b", str(turn_length(iters))] + (["-t", times] if times else [])
        env, preload_autoopt = self.mode_env(mode, platform)
        return self.launch(platform, prog, args, env,
                           [o["lib_path"]] if preload_autoopt else [], o["timeout"])

    def launch(self, platform, prog, args, env, preload, timeout):
        """The argv that runs prog on the platform's ranks under its launcher and waiting
        policy, with env and the libraries preload in every rank; timeout: the cluster's
        limit (shm: Runner.run's)."""
        o = self.o
        preload = list(preload)
        p = PLATFORMS[platform]
        use_yield = p["ranks"] > cores()
        if platform == "shm":
            if use_yield:
                preload.append(o["yield_path"])
            # every mode alike: ranks bound round-robin to cores, so that two ranks sharing a
            # core stay together instead of migrating (run-to-run spread halves at n=128)
            argv = [o["mpiexec"], "-bind-to", "core", "-n", str(p["ranks"])]
            for k, v in env.items():
                argv += ["-genv", k, v]
            if preload:
                argv += ["-genv", "LD_PRELOAD", ":".join(preload)]
            return argv + [prog] + args
        argv = [o["netcluster"], "run", "-q", "-n", str(p["ranks"]),
                "--switches", str(p["switches"]), "--yield", "on" if use_yield else "off",
                "--timeout", f"{timeout:g}"]
        if use_yield:
            argv += ["--yield-lib", o["yield_path"]]
        for k, v in env.items():
            argv += ["--env", f"{k}={v}"]
        for lib in preload:
            argv += ["--preload", lib]
        return argv + ["--", prog] + args

    def start(self, argv, **kw):
        """Starts one job in a session of its own, without the harness's LD_PRELOAD."""
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        self.proc = subprocess.Popen(argv, env=env, start_new_session=True, **kw)

    def run(self, argv):
        """Runs one job.  Returns (exit status or None on timeout, stdout, stderr, seconds)."""
        t0 = time.monotonic()
        self.start(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = self.proc.communicate(timeout=self.o["timeout"] + 30)
            status = self.proc.returncode
            if status == 124 and "--timeout" in argv:
                status = None
        except subprocess.TimeoutExpired:
            self.stop()
            out, err = self.proc.communicate()
            status = None
        self.proc = None
        return status, out, err, time.monotonic() - t0

    def run_logged(self, argv, log_path, timeout, echo):
        """Runs one long job with its stdout and stderr going to log_path, after its command
        line, and hands each line to echo as it comes (progress).  timeout: the job's own
        limit; it is stopped 30 s after it.  Returns (exit status or None on timeout,
        seconds)."""
        t0 = time.monotonic()
        why = outfile.check(log_path)
        if why:
            raise OSError(why)
        with open(log_path, "w") as log:
            log.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
            log.flush()
            self.start(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        status, pending = None, ""
        with open(log_path, errors="replace") as f:
            f.readline()
            while True:
                done = self.proc.poll() is not None
                pending += f.read()
                *lines, pending = pending.split("\n")
                for line in lines:
                    echo(line)
                if done:
                    status = self.proc.returncode
                    break
                if time.monotonic() - t0 > timeout + 30:
                    self.stop()
                    break
                time.sleep(0.5)
        if pending:
            echo(pending)
        if status == 124 and "--timeout" in argv:
            status = None
        self.proc = None
        return status, time.monotonic() - t0

    def stop(self):
        """Stops the running job (SIGINT first: autoopt-netcluster then removes its cluster)."""
        cli.stop_group(self.proc, (10.0, 5.0, 5.0))


def parse_result(out):
    """The key=value fields of the last line holding avg_iter_us=, or None."""
    for line in reversed(out.splitlines()):
        if "avg_iter_us=" in line:
            return dict(re.findall(r"(\w+)=(\S+)", line))
    return None


# ------------------------------------------------------------------ statistics and reports

def fmt_us(v):
    if v is None:
        return "n/a"
    if v >= 100000:
        return f"{v / 1000:.0f} ms"
    if v >= 10000:
        return f"{v / 1000:.1f} ms"
    if v >= 100:
        return f"{v:.0f} us"
    return f"{v:.1f} us"


def summarize(cells, modes):
    """cells: {(platform, example, n, mode): {"values": [...], "status": str}} -> summary rows"""
    rows = []
    for (platform, example, n, mode), c in sorted(
            cells.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2],
                                           modes.index(kv[0][3]))):
        vals = c["values"]
        ok = c["status"] == "ok" and vals
        rows.append({"platform": platform, "example": example, "size": n, "mode": mode,
                     "reps_ok": len(vals) if ok else 0,
                     "median_us": statistics.median(vals) if ok else None,
                     "min_us": min(vals) if ok else None,
                     "max_us": max(vals) if ok else None,
                     "status": c["status"], "detail": c.get("detail", "")})
    index = {(r["platform"], r["example"], r["size"], r["mode"]): r for r in rows}
    for r in rows:
        key = (r["platform"], r["example"], r["size"])
        if r["mode"].startswith("turns-"):
            turns_ratios(r, cells, key)
            continue
        nat = index.get(key + ("native",))
        hands = [index.get(key + (h,)) for h in HAND_MODES]
        hands = [h for h in hands if h and h["median_us"]]
        best = min(hands, key=lambda h: h["median_us"]) if hands else None
        r["ratio_native"] = (r["median_us"] / nat["median_us"]
                             if r["median_us"] and nat and nat["median_us"] else None)
        r["ratio_hand"] = (r["median_us"] / best["median_us"] if r["median_us"] and best else None)
        r["hand_best"] = best["mode"] if best else ""
        r["ratio_hand_ci"] = None
        if r["ratio_hand"] and best["mode"] != r["mode"]:
            r["ratio_hand_ci"] = ratio_ci(cells[key + (r["mode"],)].get("by_rep", {}),
                                          cells[key + (best["mode"],)].get("by_rep", {}))
        isend = index.get(key + ("isend",))
        r["ratio_isend"] = r["ratio_isend_ci"] = None
        if (r["median_us"] and isend and isend["median_us"]
                and r["mode"] not in ("native",) + HAND_MODES):
            r["ratio_isend"] = r["median_us"] / isend["median_us"]
            r["ratio_isend_ci"] = ratio_ci(cells[key + (r["mode"],)].get("by_rep", {}),
                                           cells[key + ("isend",)].get("by_rep", {}))
    return rows


def turns_ratios(r, cells, key):
    """Ratios of a turns-* row.  Each job gives, per turn, the time of this exchange divided
    by the time of the reference's turn next to it, and the job's ratio is the median of
    those: a scheduler stall of a few ms lands in one turn of one mode and leaves the median
    alone, and a slow or fast spell of the machine moves neighbouring turns alike.  The row's
    ratio is the median over jobs, with a bootstrap interval over jobs (median_ci).  The ratio
    of the jobs' average times (every turn, learning included) is kept as ratio_isend_mean."""
    c = cells[key + (r["mode"],)]
    r["ratio_native"] = r["ratio_hand"] = r["ratio_hand_ci"] = None
    r["ratio_isend"] = r["ratio_isend_ci"] = None
    r["ratio_isend_mean"] = r["ratio_isend_mean_ci"] = None
    r["hand_best"] = ""
    if not r["median_us"]:
        return
    if r["mode"] != "turns-native":
        r["ratio_native"] = median_ci(c.get("turn_native", {}), point=True)
    if r["mode"] != "turns-isend":
        r["ratio_hand"] = median_ci(c.get("turn_isend", {}), point=True)
        r["ratio_hand_ci"] = median_ci(c.get("turn_isend", {}))
        r["hand_best"] = "turns-isend" if r["ratio_hand"] else ""
    if r["mode"] == "turns-chains":
        r["ratio_isend"], r["ratio_isend_ci"] = r["ratio_hand"], r["ratio_hand_ci"]
        mine = c.get("by_rep", {})
        isend = cells.get(key + ("turns-isend",), {}).get("by_rep", {})
        per_job = {i: mine[i] / isend[i] for i in set(mine) & set(isend) if isend[i]}
        r["ratio_isend_mean"] = median_ci(per_job, point=True)
        r["ratio_isend_mean_ci"] = median_ci(per_job)


def median_ci(per_job, point=False, resamples=2000):
    """per_job: {repetition: ratio}.  The median of the ratios (point=True), or its 95%
    percentile-bootstrap interval, jobs resampled; None with fewer than 5 jobs (point: with
    none)."""
    ratios = [per_job[i] for i in sorted(per_job)]
    if point:
        return statistics.median(ratios) if ratios else None
    if len(ratios) < 5:
        return None
    return bootstrap_ci(ratios, statistics.median, 20261124, resamples)


GOAL_ISEND = 1.03      # issue 4: chains <= 1.03 x the hand-written MPI_Isend program


def goal_verdict(ci):
    """Whether the runs show ratio <= GOAL_ISEND: by the interval, never by the median alone."""
    if not ci:
        return "undecided (too few paired repetitions)"
    if ci[1] <= GOAL_ISEND:
        return "shown"
    if ci[0] > GOAL_ISEND:
        return "refuted"
    return "undecided"


def bootstrap_ci(items, statistic, seed, resamples=2000):
    """95% percentile-bootstrap interval of statistic(items): items resampled with
    replacement.  Fixed seed: the same runs give the same interval."""
    rng = random.Random(seed)
    est = sorted(statistic([items[rng.randrange(len(items))] for _ in items])
                 for _ in range(resamples))
    return est[int(0.025 * resamples)], est[int(0.975 * resamples) - 1]


def ratio_ci(a, b, resamples=2000):
    """95% percentile-bootstrap interval of median(a) / median(b).  a and b map a repetition
    to its value; a repetition's two runs ran one after the other (modes are interleaved), so
    repetitions are resampled as pairs and a slow spell of the machine moves both."""
    reps = sorted(set(a) & set(b))
    if len(reps) < 5:
        return None
    return bootstrap_ci(reps, lambda pick: statistics.median(a[i] for i in pick)
                        / statistics.median(b[i] for i in pick), 20261123, resamples)


# matplotlib (Agg backend), imported when the first plot is drawn: None until then, False
# when it cannot be imported (the plots are skipped, the tables are written).
_PLT = None
PLOTS_SKIPPED = "python3-matplotlib is not installed (apt-get install python3-matplotlib)"


def pyplot():
    """matplotlib.pyplot on the Agg backend, or None when it cannot be imported; the first
    failure prints one warning line."""
    global _PLT
    if _PLT is None:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as e:
            info(f"warning: cannot import matplotlib ({e}): the plots are skipped; "
                 "install python3-matplotlib")
            _PLT = False
            return None
        matplotlib.rcParams["svg.fonttype"] = "none"     # text stays text in the SVG
        matplotlib.rcParams["svg.hashsalt"] = PROG       # the same data give the same SVG
        _PLT = plt
    return _PLT or None


def plot_times(path, title, series):
    """Draws a log-log line plot into path (.svg) and the .png beside it; False when
    matplotlib is missing.  series: {mode: [(size, median, min, max), ...]}."""
    plt = pyplot()
    if plt is None:
        return False
    import matplotlib.ticker as ticker
    pts = [(x, y) for s in series.values() for (x, y, lo, hi) in s for y in (lo, hi)]
    if not pts:
        fig = plt.figure(figsize=(8.0, 1.2))
        fig.text(0.02, 0.65, title, fontsize=12)
        fig.text(0.02, 0.25, "no measurement (every mode n/a)", fontsize=10)
    else:
        xs = sorted({x for x, _ in pts})
        ly0 = math.floor(math.log10(min(y for _, y in pts)))
        ly1 = math.ceil(math.log10(max(y for _, y in pts)))
        if ly1 == ly0:
            ly1 += 1
        lx0, lx1 = math.log2(xs[0]) - 0.3, math.log2(xs[-1]) + 0.3  # points off the axes
        fig, ax = plt.subplots(figsize=(8.0, 4.6))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(2 ** lx0, 2 ** lx1)
        ax.set_ylim(10 ** ly0, 10 ** ly1)
        ax.xaxis.set_major_locator(ticker.FixedLocator(xs))
        ax.xaxis.set_major_formatter(ticker.FixedFormatter([str(x) for x in xs]))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        decades = list(range(ly0, ly1 + 1))
        ax.yaxis.set_major_locator(ticker.FixedLocator([10.0 ** e for e in decades]))
        ax.yaxis.set_major_formatter(ticker.FixedFormatter(
            [f"{10 ** e:g} us" if e < 3 else f"{10 ** (e - 3):g} ms" if e < 6
             else f"{10 ** (e - 6):g} s" for e in decades]))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        ax.grid(axis="y", which="major", color="#dddddd")
        ax.set_axisbelow(True)
        ax.set_title(title, loc="left", fontsize=12)
        ax.set_xlabel("problem size n (log scale)")
        ax.set_ylabel("average iteration time (median, bars: min-max)")
        # modes side by side, 4/490 of the axis apart, so the bars stay apart
        step = 4 / 490 * (lx1 - lx0)
        for idx, (mode, s) in enumerate(series.items()):
            s = sorted(s)
            if not s:
                continue
            f = 2 ** ((idx - (len(series) - 1) / 2) * step)
            ax.errorbar([x * f for x, y, lo, hi in s], [y for x, y, lo, hi in s],
                        yerr=[[y - lo for x, y, lo, hi in s], [hi - y for x, y, lo, hi in s]],
                        fmt="-o", color=COLORS.get(mode, "#000000"), linewidth=2,
                        elinewidth=1, markersize=5, capsize=0,
                        label=MODE_LABEL.get(mode, mode))
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=9)
    try:
        fig.savefig(path, bbox_inches="tight", metadata={"Date": None})
        fig.savefig(os.path.splitext(path)[0] + ".png", dpi=100, bbox_inches="tight")
    finally:
        plt.close(fig)
    return True


def calibration_md(path):
    """A short Markdown account of a saved calibration."""
    try:
        with open(path) as f:
            cal = json.load(f)
    except (OSError, ValueError):
        return f"calibration file {path} could not be read"
    pts = {p["bytes"]: p for p in cal.get("points", [])}
    pick = [s for s in (1, 1024, 16384, 65536, 1 << 20, 4 << 20) if s in pts]
    head = " | ".join(f"{s // 1024} KiB" if s >= 1024 and s < 1 << 20 else
                      (f"{s >> 20} MiB" if s >= 1 << 20 else f"{s} B") for s in pick)
    vals = " | ".join(f"{pts[s]['oneway_us_median']:.0f} us, {pts[s]['mbit_s']:.1f} Mbit/s"
                      if s >= 1024 else f"{pts[s]['oneway_us_median']:.1f} us" for s in pick)
    topo = cal.get("topology", {})
    lines = [f"Calibration ({os.path.basename(path)}, {cal.get('date', '?')}): "
             f"{topo.get('path', '?')}, tbf burst {topo.get('burst', '?')}, verdict "
             f"**{cal.get('verdict', '?')}**"
             + (" (" + "; ".join(cal["reasons"][:3])
                + (f"; +{len(cal['reasons']) - 3} more" if len(cal["reasons"]) > 3 else "")
                + ")" if cal.get("reasons") else "")
             + (", measured on a BUSY machine" if cal.get("busy") else "") + ".", "",
             f"| ping-pong one-way | {head} |", "|---" * (len(pick) + 1) + "|",
             f"| median | {vals} |"]
    return "\n".join(lines)


def write_reports(o, cells, runs, idle_before, idle_after, calibrations, policies,
                  tunings, interrupted, started):
    os.makedirs(o["out"], exist_ok=True)
    modes = expand_modes(o["modes"])
    rows = summarize(cells, modes)
    # the tuning file each platform's tuned mode ran with ("none": every collective native)
    used = {p: o["tuning"] or (tuning_files(o, p)["tune"]
                               if (tunings.get(p) or {}).get("status") == "ok" else "none")
            for p in o["platforms"]}
    with outfile.replacing(os.path.join(o["out"], "runs.csv"), newline="") as f:
        w = csv.writer(f)
        w.writerow(["platform", "example", "size", "mode", "rep", "avg_iter_us", "status",
                    "detail", "seconds"])
        for r in runs:
            w.writerow([r["platform"], r["example"], r["size"], r["mode"], r["rep"],
                        "" if r["value"] is None else f"{r['value']:.3f}", r["status"],
                        r["detail"], f"{r['seconds']:.2f}"])
    with outfile.replacing(os.path.join(o["out"], "summary.csv"), newline="") as f:
        w = csv.writer(f)
        w.writerow(["platform", "example", "size", "mode", "reps_ok", "median_us", "min_us",
                    "max_us", "ratio_to_native", "ratio_to_best_hand", "best_hand",
                    "ratio_to_best_hand_ci95_lo", "ratio_to_best_hand_ci95_hi",
                    "ratio_to_isend", "ratio_to_isend_ci95_lo", "ratio_to_isend_ci95_hi",
                    "status", "detail", "tuning"])
        for r in rows:
            ci = r["ratio_hand_ci"] or (None, None)
            ci_isend = r["ratio_isend_ci"] or (None, None)
            w.writerow([r["platform"], r["example"], r["size"], r["mode"], r["reps_ok"]]
                       + ["" if r[k] is None else f"{r[k]:.3f}"
                          for k in ("median_us", "min_us", "max_us", "ratio_native",
                                    "ratio_hand")]
                       + [r["hand_best"]] + ["" if x is None else f"{x:.3f}" for x in ci]
                       + ["" if x is None else f"{x:.3f}"
                          for x in (r["ratio_isend"],) + tuple(ci_isend)]
                       + [r["status"], r["detail"],
                          used.get(r["platform"], "") if r["mode"] == "tuned" else ""])
    index = {(r["platform"], r["example"], r["size"], r["mode"]): r for r in rows}

    busy = [x for x in (idle_before, idle_after) if x and not x.get("idle")]
    md = [f"# autoopt benchmark report", "",
          f"- Date: {started:%Y-%m-%d %H:%M:%S} (finished {datetime.datetime.now():%H:%M:%S})"
          + (" — **INTERRUPTED: partial results**" if interrupted else ""),
          f"- Machine: {socket.gethostname()}, {cores()} cores, Linux {os.uname().release}",
          f"- Command: `{' '.join(shlex.quote(a) for a in sys.argv)}`",
          f"- Library: `{o['lib_path']}`" + ("" if os.path.isfile(o["lib_path"] or "")
                                             else " (**not built**: autoopt modes are n/a)"),
          f"- Repetitions: {o['reps']} per mode, modes interleaved "
          f"({' '.join(o['modes'])} {' '.join(o['modes'])} ...); medians with min–max; "
          "× best hand with its 95% bootstrap interval [lo–hi], repetitions resampled as pairs"
          + ("; turns-* ratios are medians of per-job ratios, jobs resampled"
             if "turns" in o["modes"] else ""),
          "- Chain mode of the chains and turns modes: "
          + ("the library's default configuration (neither AUTOOPT_CONVERT nor AUTOOPT_CHAINS "
             "set)" if o["chains"] == "default" else f"AUTOOPT_CHAINS={o['chains']}"),
          "- Idle check before: " + (idle_before["summary"] if idle_before else "not run"),
          "- Idle check after: " + (idle_after["summary"] if idle_after else "not run")]
    if busy:
        md += ["", "> **Warning: the machine was busy during these measurements.** Background "
               "load causes scheduler stalls (docs/platform.md); treat every number below as "
               "marked BUSY."]
    md += ["", "## Platforms and waiting policy", ""]
    for platform in o["platforms"]:
        md.append(f"- **{platform}**: {PLATFORMS[platform]['describe']}. Waiting policy "
                  f"(every mode alike): {policies[platform]}.")
        if platform in calibrations:
            md += ["", "  " + calibration_md(calibrations[platform]).replace("\n", "\n  "), ""]
    if tunings or (o["tuning"] and "tuned" in o["modes"]):
        md += ["", "## Tuning files of the tuned mode", ""]
        for platform in o["platforms"]:
            md += tuning_md(o, platform, tunings.get(platform))
    md += ["", "Modes: " + "; ".join(f"`{m}` = {MODE_LABEL[m]}" for m in modes) + ".",
           "`n/a` = not measured (the reason follows in the detailed tables); `—` = the mode "
           "does not apply to the example."]

    if "sor" in o["examples"]:
        for platform in o["platforms"]:
            sizes = sorted({r["size"] for r in rows if r["platform"] == platform
                            and r["example"] == "sor"})
            if not sizes:
                continue
            cols = [s for s in TABLE1_SIZES if s in sizes] + [s for s in sizes
                                                              if s not in TABLE1_SIZES]
            md += ["", f"## SOR, Table 1 layout — {platform}", "",
                   "Average iteration time (median of the repetitions)"
                   + (", BUSY machine" if busy else "") + ".", "",
                   "| method | " + " | ".join(f"n={s}" for s in cols) + " |",
                   "|---" * (len(cols) + 1) + "|"]
            for mode, label in TABLE1_ROWS:
                cells_md = []
                for s in cols:
                    r = index.get((platform, "sor", s, mode))
                    cells_md.append("not run" if r is None else fmt_us(r["median_us"]))
                md.append(f"| {label} | " + " | ".join(cells_md) + " |")
            goal_rows = []
            for mode, label in (("chains", "chains ÷ isend, separate runs"),
                                ("turns-chains", "chains ÷ isend, turns in one job")):
                goal = [index.get((platform, "sor", s, mode)) for s in cols]
                if not any(r and r["ratio_isend"] for r in goal):
                    continue
                goal_rows += [
                    f"| {label} | " + " | ".join(
                        "n/a" if not (r and r["ratio_isend"]) else
                        f"{r['ratio_isend']:.3f}" + (" [{:.3f}–{:.3f}]".format(
                            *r["ratio_isend_ci"]) if r["ratio_isend_ci"] else "")
                        for r in goal) + " |",
                    "| verdict | " + " | ".join(
                        "n/a" if not (r and r["ratio_isend"]) else
                        goal_verdict(r["ratio_isend_ci"]) for r in goal) + " |"]
                if mode == "turns-chains":
                    goal_rows.append(
                        "| (turns: ratio of the jobs' average times) | " + " | ".join(
                            "n/a" if not (r and r.get("ratio_isend_mean")) else
                            f"{r['ratio_isend_mean']:.3f}" + (" [{:.3f}–{:.3f}]".format(
                                *r["ratio_isend_mean_ci"]) if r["ratio_isend_mean_ci"] else "")
                            for r in goal) + " |")
            if goal_rows:
                md += ["", f"Goal: autoopt chains ≤ {GOAL_ISEND} × hand-written MPI_Isend, "
                       "measured in the same run, with the 95% bootstrap interval; shown when "
                       f"the whole interval is ≤ {GOAL_ISEND}, refuted when it is all above. "
                       "Separate runs: ratio of the medians of the chains and isend runs, "
                       "repetitions resampled as pairs.  Turns in one job: in each job the "
                       "median over its turns of chains' turn time ÷ the isend turn next to "
                       "it, then the median over jobs, jobs resampled (see the turns mode; "
                       "the last row, for reference only, divides the jobs' average times, "
                       "which scheduler stalls of a few ms dominate).", "",
                       "| | " + " | ".join(f"n={s}" for s in cols) + " |",
                       "|---" * (len(cols) + 1) + "|"] + goal_rows

    for example in o["examples"]:
        for platform in o["platforms"]:
            sub = [r for r in rows if r["platform"] == platform and r["example"] == example]
            if not sub:
                continue
            md += ["", f"## {example} — {platform}", "",
                   "| n | mode | median | min–max | × native | × best hand | × isend | note |",
                   "|---|---|---|---|---|---|---|---|"]
            series = {}
            for r in sub:
                if r["status"] == "not applicable":
                    continue
                rng = (f"{fmt_us(r['min_us'])}–{fmt_us(r['max_us'])}" if r["median_us"]
                       else "")
                note = "" if r["status"] == "ok" else f"{r['status']}: {r['detail']}"
                md.append(f"| {r['size']} | {r['mode']} | {fmt_us(r['median_us'])} | {rng} | "
                          + (f"{r['ratio_native']:.2f}" if r["ratio_native"] else "")
                          + " | " + (f"{r['ratio_hand']:.2f} ({r['hand_best']})"
                                     if r["ratio_hand"] else "")
                          + (" [{:.2f}–{:.2f}]".format(*r["ratio_hand_ci"])
                             if r["ratio_hand_ci"] else "")
                          + " | " + (f"{r['ratio_isend']:.2f}" if r["ratio_isend"] else "")
                          + (" [{:.2f}–{:.2f}]".format(*r["ratio_isend_ci"])
                             if r["ratio_isend_ci"] else "")
                          + f" | {note} |")
                if r["median_us"]:
                    series.setdefault(r["mode"], []).append(
                        (r["size"], r["median_us"], r["min_us"], r["max_us"]))
            svg = f"{example}-{platform}.svg"
            if plot_times(os.path.join(o["out"], svg),
                          f"{example}, {platform}: average iteration time"
                          + (" (BUSY machine)" if busy else ""), series):
                md += ["", f"![{example} on {platform}]({svg})"]
            else:
                md += ["", f"Plot skipped: {PLOTS_SKIPPED}."]
    outfile.write_text(os.path.join(o["out"], "report.md"), "\n".join(md) + "\n")
    return rows


# ------------------------------------------------------------------ main

def read_turn_times(path):
    """{method: [us per iteration of each turn]} of the -t file of a turns job, or None."""
    got = {}
    try:
        with open(path) as f:
            for line in f:
                method, us = line.split()
                got.setdefault(method, []).append(float(us))
    except (OSError, ValueError):
        return None
    return got


def turn_ratio(times, a, b):
    """Median over the turns of a job of (method a's turn time / method b's next to it)."""
    pairs = [x / y for x, y in zip(times.get(a, []), times.get(b, [])) if y > 0]
    return statistics.median(pairs) if pairs else None


def record_turns(cells, key, rep, out, st, detail, runs, secs, times_path):
    """Files the three results of one turns job (st "ok": the job succeeded) into their cells
    and runs.csv, with the job's per-turn ratios from its -t file; a missing result or a
    checksum unlike the earlier jobs' makes the mode n/a.  Returns (turns-chains value,
    status, detail) for the progress line."""
    results = turn_results(key[1])
    vals, cs = parse_turns(key[1], out) if st == "ok" else ({}, None)
    times = read_turn_times(times_path) if st == "ok" else None
    if st == "ok" and any(vals.get(m) is None for m, _ in results):
        st, detail = "n/a", f"no '{key[1]}: turn mode=... avg_iter_us=' line for every mode"
    elif st == "ok" and not times:
        st, detail = "n/a", f"no per-turn times in {times_path}"
    if st == "ok" and cs is not None:
        seen = cells[key + ("turns-chains",)].setdefault("checksums", set())
        if seen and cs not in seen:
            st, detail = "n/a", f"checksum {cs} differs from the earlier jobs' {next(iter(seen))}"
        seen.add(cs)
    for cell_mode, _ in results:
        c = cells[key + (cell_mode,)]
        v = vals.get(cell_mode) if st == "ok" else None
        if st == "ok":
            c["values"].append(v)
            c.setdefault("by_rep", {})[rep] = v
            for ref, name in (("turns-isend", "turn_isend"), ("turns-native", "turn_native")):
                r = turn_ratio(times, dict(results)[cell_mode], dict(results)[ref])
                if r is not None:
                    c.setdefault(name, {})[rep] = r
        else:
            c.update(status=st, detail=detail)
        runs.append({"platform": key[0], "example": key[1], "size": key[2], "mode": cell_mode,
                     "rep": rep + 1, "value": v, "status": st, "detail": detail,
                     "seconds": secs})
    return vals.get("turns-chains") if st == "ok" else None, st, detail


def tune_command(o, runner, platform, tp):
    """(argv, timeout) of the platform's autoopt-tune run (tp from tuning_plan): the ranks,
    launcher and waiting policy of the platform's example runs, without libautoopt.so (the
    tuner calls the algorithms itself).  The tuner stops measuring at the budget and needs
    a little longer to finish its grid point and write the file; the timeout leaves it
    a quarter of the budget and two minutes more."""
    f = tuning_files(o, platform)
    timeout = tp["budget"] * 1.25 + 120
    args = ["--coll", ",".join(tp["colls"]), "--sizes", tp["sizes"],
            "--budget", f"{tp['budget']:g}", "--raw", f["raw"], "-o", f["tune"]]
    return runner.launch(platform, o["tune_path"], args, {}, [], timeout), timeout


def tuned_na(cells, platform, detail):
    """Makes the tuned mode n/a on a platform, with the reason."""
    for key, c in cells.items():
        if key[0] == platform and key[3] == "tuned" and c["status"] == "ok":
            c.update(status="n/a", detail=detail)


def run_tuning(o, runner, platform, tp):
    """Runs the platform's autoopt-tune (tp from tuning_plan, with argv and timeout from
    tune_command), replacing its earlier files in DIR, and shows its progress lines.  Sets
    tp's status ("ok" or "failed"), detail and seconds."""
    f = tuning_files(o, platform)
    for path in f.values():
        if os.path.exists(path):
            os.remove(path)
    tp["status"] = "running"
    info(f"{platform}: tuning the collectives for the tuned mode: {','.join(tp['colls'])}, "
         f"{tp['sizes']} B, budget {tp['budget']:g} s (log {f['log']})")
    status, secs = runner.run_logged(tp["argv"], f["log"], tp["timeout"],
                                     lambda line: info(f"{platform}: {line}"))
    if status is None:
        detail = f"timeout after {tp['timeout']:g} s"
    elif status != 0:
        detail = f"exit status {status}"
    elif not os.path.isfile(f["tune"]):
        detail = f"exit status 0 but no {f['tune']}"
    else:
        detail = ""
    tp.update(status="failed" if detail else "ok", detail=detail, seconds=secs)
    info(f"{platform}: tuning " + (f"failed ({detail}; see {f['log']}): the tuned mode is n/a"
                                   if detail else f"took {secs:.0f} s: {f['tune']}"))


def tuning_md(o, platform, tp):
    """The report's account of the tuning file the tuned mode used on a platform."""
    if o["tuning"]:
        return [f"- **{platform}**: `{o['tuning']}`, given with `--tuning` (used on every "
                "platform)."]
    if tp is None:
        return [f"- **{platform}**: no tuning file: no selected example calls a collective "
                "autoopt routes in its timed loop, so the tuned mode runs every collective "
                "native (AUTOOPT_COLLECTIVES=1 alone)."]
    f = tuning_files(o, platform)
    calls = "; ".join(f"{e}: {', '.join(cs)}" for e, cs in tp["users"].items())
    cmd = " ".join(shlex.quote(a) for a in tp["argv"])
    state = tp["status"]
    if state == "ok":
        head = f"`{f['tune']}`, written by autoopt-tune for this run in {tp['seconds']:.0f} s"
    elif state == "failed":
        head = (f"**tuning failed** ({tp['detail']}; output in `{os.path.basename(f['log'])}`),"
                " so the tuned mode is n/a here")
    elif state == "not built":
        head = f"not tuned: {tp['detail']}, so the tuned mode is n/a here"
    else:
        head = f"not tuned: interrupted {'during' if state == 'running' else 'before'} the tuning"
    head = f"- **{platform}**: {head}"
    lines = [head + f": collectives the examples call ({calls}), {tp['sizes']} B, budget "
             f"{tp['budget']:g} s. Command: `{cmd}`."
             + "".join(f" {what} `{os.path.basename(f[k])}`." for k, what in
                       (("raw", "Raw measurements"), ("log", "Output"))
                       if os.path.isfile(f[k]))]
    if state == "ok":
        try:
            with open(f["tune"]) as fh:
                text = fh.read().splitlines()
        except OSError as e:
            return lines + [f"  (the file could not be read: {e.strerror})"]
        lines += ["", "  ```"] + ["  " + x for x in text
                                  if x.startswith("# budget") or x.strip()
                                  and not x.startswith("#")] + ["  ```"]
    return lines


def idle_check(o, after=False):
    wait = [] if after or not o["wait_idle"] else ["--wait", f"{o['wait_idle']:g}"]
    if wait:
        info(f"checking that the machine is idle (waiting up to {o['wait_idle']:g} s)")
    try:
        p = subprocess.run([o["netcluster"], "idle", "--json"] + (["--after"] if after else [])
                           + wait, capture_output=True, text=True,
                           timeout=30 + (0 if after else o["wait_idle"]))
        return json.loads(p.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def main(argv):
    o = parse_args(argv)
    resolve_paths(o)
    cli.catch_stop_signals()
    started = datetime.datetime.now()
    modes = o["modes"]
    if o["quick"]:
        sizes = {e: o["sizes"].get(e, QUICK_SIZES[e]) for e in o["examples"]}
    else:
        sizes = {e: o["sizes"].get(e, DEFAULT_SIZES[e]) for e in o["examples"]}
    lib_ok = bool(o["lib_path"]) and os.path.isfile(o["lib_path"])
    cal_paths, policies = {}, {}
    runner = Runner(o)
    nc = os.path.isfile(o["netcluster"])
    for platform in o["platforms"]:
        n = PLATFORMS[platform]["ranks"]
        if n > cores():
            policies[platform] = (f"yield-when-idle ({n} ranks > {cores()} cores; "
                                  f"{o['yield_path']})")
            if not os.path.isfile(o["yield_path"] or ""):
                raise UsageError(f"the yield-when-idle library '{o['yield_path']}' does not "
                                 f"exist; {platform} needs it ({n} ranks > {cores()} cores): "
                                 "build autoopt or give --yield-lib FILE")
        else:
            policies[platform] = f"busy polling, MPICH's default ({n} ranks <= {cores()} cores)"
        if platform == "shm":
            policies[platform] += "; ranks bound to cores round-robin (-bind-to core)"
        if platform != "shm" and not nc:
            raise UsageError(f"{platform} needs autoopt-netcluster next to {PROG} "
                             f"({o['netcluster']})")

    # The matrix, in run order: per (platform, example, size), reps x modes interleaved.
    plan, cells = [], {}
    for platform in o["platforms"]:
        for example in o["examples"]:
            prog = os.path.join(o["examples_path"] or "", example)
            for n in sizes[example]:
                for mode in modes:
                    for cell_mode in expand_modes([mode]):
                        key = (platform, example, n, cell_mode)
                        cells[key] = {"values": [], "status": "ok", "detail": ""}
                        if mode in HAND_MODES and mode not in HAND_METHODS.get(example, ()):
                            cells[key].update(status="not applicable",
                                              detail=f"{example} has no {mode} variant")
                        elif mode == "turns" and example not in BLOCKING_METHOD:
                            cells[key].update(status="not applicable",
                                              detail=f"{example} has no exchange variants")
                        elif not os.access(prog, os.X_OK):
                            cells[key].update(status="n/a", detail=f"{prog} not built")
                        elif mode not in ("native",) + HAND_MODES and not lib_ok:
                            lib = o["lib_path"] or "libautoopt.so"
                            cells[key].update(status="n/a", detail=f"{lib} not built")
                for rep in range(o["reps"]):
                    for mode in modes:
                        if cells[(platform, example, n, expand_modes([mode])[0])]["status"] \
                                == "ok":
                            plan.append((platform, example, n, mode, rep))

    # The tuned mode's tuning file per platform: --tuning's, or the one autoopt-tune writes
    # just before the platform's first run, for what its examples call (tuning_plan).
    tunings = {}
    for platform in o["platforms"]:
        if "tuned" not in modes or o["tuning"]:
            break
        tp = tunings[platform] = tuning_plan(o, plan, platform)
        if tp is None:
            continue
        tp["argv"], tp["timeout"] = tune_command(o, runner, platform, tp)
        if os.access(o["tune_path"], os.X_OK):
            tp["status"] = "pending"
            runner.tuning[platform] = tuning_files(o, platform)["tune"]
        else:
            tp.update(status="not built", detail=f"{o['tune_path']} is not built")
            tuned_na(cells, platform, tp["detail"])

    built = [e for e in o["examples"]
             if os.access(os.path.join(o["examples_path"] or "", e), os.X_OK)]
    if not built and not o["dry_run"]:
        print(f"{PROG}: SKIP: no example program is built in "
              f"{o['examples_path'] or '(no examples folder)'} (give --examples DIR or --build DIR)",
              file=sys.stderr)
        return 77

    if o["dry_run"]:
        shown = set()
        for platform, example, n, mode, rep in plan:
            tp = tunings.get(platform)
            if tp and tp["status"] == "pending" and platform not in shown:
                print(" ".join(shlex.quote(a) for a in tp["argv"]))
                shown.add(platform)
            if rep == 0:
                print(" ".join(shlex.quote(a) for a in runner.command(platform, example, n, mode)))
        for key, c in cells.items():
            if c["status"] != "ok":
                print(f"# {' '.join(map(str, key))}: {c['status']} ({c['detail']})")
        return 0

    os.makedirs(o["out"], exist_ok=True)
    info(f"writing to {o['out']}")
    if importlib.util.find_spec("matplotlib") is None:
        pyplot()            # one warning line now, not after the runs
    idle_before = idle_check(o)
    if idle_before:
        info(f"machine {idle_before['summary']}")
        if not idle_before["idle"]:
            info("warning: the machine is busy; the results will be marked BUSY")
    runs, interrupted, idle_after = [], None, None
    try:
        for platform in o["platforms"]:
            if platform == "shm":
                continue
            if platform in o["calibration"]:
                dst = os.path.join(o["out"], f"calibration-{platform}.json")
                if os.path.abspath(o["calibration"][platform]) != dst:
                    shutil.copyfile(o["calibration"][platform], dst)
                cal_paths[platform] = dst
                continue
            dst = os.path.join(o["out"], f"calibration-{platform}.json")
            info(f"calibrating {platform} (autoopt-netcluster calibrate)...")
            argv_cal = [o["netcluster"], "calibrate", "--switches",
                        str(PLATFORMS[platform]["switches"]), "--save", dst]
            if o["quick"]:
                argv_cal += ["--max-size", str(1 << 20), "--seconds", "0.1"]
            runner.proc = subprocess.Popen(argv_cal, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True,
                                           start_new_session=True)
            log = runner.proc.communicate()[0]
            runner.proc = None
            outfile.write_text(os.path.join(o["out"], f"calibration-{platform}.txt"), log)
            if os.path.isfile(dst):
                cal_paths[platform] = dst
                verdict = re.search(r"^Verdict: .*$", log, re.M)
                info(f"{platform}: {verdict.group(0) if verdict else 'calibrated'}")
            else:
                info(f"{platform}: calibration failed (see calibration-{platform}.txt); "
                     "its results will say so")

        total = len(plan)
        t_start = time.monotonic()
        t_tuning = 0.0          # of the elapsed time; the ETA's pace counts the runs only
        for k, (platform, example, n, mode, rep) in enumerate(plan):
            tp = tunings.get(platform)
            if tp and tp["status"] == "pending":
                run_tuning(o, runner, platform, tp)
                t_tuning += tp["seconds"]
                if tp["status"] != "ok":
                    tuned_na(cells, platform, f"tuning failed: {tp['detail']} "
                             f"(see tune-{platform}.log)")
            cell = cells[(platform, example, n, expand_modes([mode])[0])]
            if cell["status"] != "ok":
                continue        # failed before: one failure makes the mode n/a here
            times = None
            if mode == "turns":
                times = os.path.join(o["out"], "turns", f"{platform}-{example}-{n}-{rep + 1}.txt")
                os.makedirs(os.path.dirname(times), exist_ok=True)
            argv_run = runner.command(platform, example, n, mode, times)
            status, out, err, secs = runner.run(argv_run)
            res = parse_result(out)
            value, st, detail = None, "ok", ""
            reject = LIB_REJECT_RE.search(err or "")
            if status is None:
                st, detail = "n/a", f"timeout after {o['timeout']:g} s"
            elif reject and mode not in ("native",) + HAND_MODES:
                st, detail = "n/a", "library: " + reject.group(0).strip()[:160]
            elif status != 0:
                st, detail = "n/a", f"exit status {status}"
            elif mode == "turns":
                pass            # three results, recorded below
            elif res is None or "avg_iter_us" not in res:
                st, detail = "n/a", "no avg_iter_us= in the output"
            else:
                try:
                    value = float(res["avg_iter_us"])
                except ValueError:
                    st, detail = "n/a", f"bad avg_iter_us={res['avg_iter_us']}"
                cs = res.get("checksum")
                if value is not None and cs is not None:
                    cell.setdefault("checksums", set()).add(cs)
                    ref = cells.get((platform, example, n, "native"), {}).get("checksums")
                    if mode != "native" and ref and len(ref) == 1 and cs not in ref:
                        st, detail = "n/a", f"checksum {cs} differs from native's {next(iter(ref))}"
                        value = None
            if mode == "turns":
                value, st, detail = record_turns(cells, (platform, example, n), rep, out, st,
                                                 detail, runs, secs, times)
            elif st == "ok":
                cell["values"].append(value)
                cell.setdefault("by_rep", {})[rep] = value
            else:
                cell.update(status=st, detail=detail)
            if st != "ok":
                os.makedirs(os.path.join(o["out"], "logs"), exist_ok=True)
                with outfile.replacing(os.path.join(
                        o["out"], "logs", f"{platform}-{example}-{n}-{mode}-{rep}.log")) as f:
                    f.write("$ " + " ".join(shlex.quote(a) for a in argv_run) + "\n")
                    f.write(f"# exit status {status}\n--- stdout\n{out}\n--- stderr\n{err}\n")
            if mode != "turns":
                runs.append({"platform": platform, "example": example, "size": n,
                             "mode": mode, "rep": rep + 1, "value": value, "status": st,
                             "detail": detail, "seconds": secs})
            elapsed = time.monotonic() - t_start
            eta = ((elapsed - t_tuning) / (k + 1) * (total - k - 1)
                   + sum(t["budget"] for t in tunings.values() if t and t["status"] == "pending"))
            info(f"[{k + 1:4d}/{total}] {platform} {example} n={n} {mode} rep {rep + 1}/"
                 f"{o['reps']}: " + (fmt_us(value) if st == "ok" else f"n/a ({detail})")
                 + f"  (elapsed {elapsed / 60:.1f} min, eta {eta / 60:.1f} min)")
    except Interrupted as e:
        interrupted = e
        cli.ignore_stop_signals()
        info(f"{e}: stopping the current run; writing the report of what was measured")
        runner.stop()
    if not interrupted:
        idle_after = idle_check(o, after=True)
        if idle_after:
            info(f"machine after the runs: {idle_after['summary']}")
    for key, c in cells.items():
        if c["status"] == "ok" and not c["values"]:
            c.update(status="n/a", detail="interrupted before it ran")
    rows = write_reports(o, cells, runs, idle_before, idle_after, cal_paths, policies,
                         tunings, interrupted, started)
    info(f"report: {os.path.join(o['out'], 'report.md')}")
    if interrupted:
        return 128 + interrupted.signum
    return 0 if any(r["median_us"] for r in rows) else 1


def run(argv):
    """The program's exit status (bin/autoopt-bench)."""
    return cli.run(PROG, main, argv)
