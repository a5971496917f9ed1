#!/usr/bin/env python3
# test_tools_py.py: unit tests of the Python tools' shared parts (tools/python/autoopt_tools):
# the parser of autoopt-bench-coll output, the configuration lookup, the exit statuses and
# the stopping of jobs; and every module of the package imports.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: test_tools_py.py PACKAGE_PARENT [VERSION]
#   PACKAGE_PARENT  the folder that holds autoopt_tools (the build tree's python/, which has
#                   the generated _paths.py); VERSION: what _paths.py must say (the project's)

import importlib
import io
import os
import pkgutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

if __name__ == "__main__":
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    EXPECTED_VERSION = sys.argv[2] if len(sys.argv) > 2 else None
    del sys.argv[1:]

from autoopt_tools import benchcoll, cli, coll_summary, config, outfile  # noqa: E402

# What autoopt-bench-coll prints for allreduce on 4 ranks with --tuning (the format of
# tools/bench-coll/bench_coll.c, numbers made up).
BENCH_OUTPUT = """\
# autoopt-bench-coll allreduce on 4 ranks; platform: one node, shared memory; waiting policy: \
yield-when-idle (tools/yield) in every run; libautoopt: /x/libautoopt.so; best of 2 repetition(s)

# autoopt-bench-coll allreduce: native, 4 ranks
# Size          Avg Latency(us)  Min Latency(us)  Max Latency(us) Iterations
4                         10.00             9.00            11.00       1000
1024                      20.00            19.00            21.00        500

# autoopt-bench-coll allreduce: ring:segment=8192, 4 ranks
# Size          Avg Latency(us)  Min Latency(us)  Max Latency(us) Iterations
4                         12.50            12.00            13.00       1000
1024                       8.00             7.50             8.50        800

# autoopt-bench-coll allreduce: tuned, 4 ranks
# Size          Avg Latency(us)  Min Latency(us)  Max Latency(us) Iterations
4                         10.20            10.00            10.40       1000
1024                       8.10             8.00             8.20        800

# allreduce on 4 ranks: best algorithm per size (ratio = native avg / best avg)
# Size          native(us)  best                             best(us)    ratio
4                    10.00  native                              10.00     1.00
1024                     -  ring:segment=8192                    8.00        -

# allreduce on 4 ranks, tuned with /x/shm4.tune: tuned/native and tuned/best (the fastest \
algorithm of this run at that size)
# Size           tuned(us)   native(us)     best(us)   tuned/native   tuned/best
4                    10.20        10.00        10.00          1.020        1.020
1024                  8.10        20.00         8.00          0.405        1.013
# tuned within 10 % of the best at 2 of 2 sizes; mean penalty against the best: 1.6 %
"""

# One job's own output (what the driver reads back): no algorithm forced, --cyclic, and a
# damaged row.
JOB_OUTPUT = """\
# autoopt-bench-coll bcast: as is, 8 ranks, dealt round-robin over 2 blocks (--cyclic)
# Size          Avg Latency(us)  Min Latency(us)  Max Latency(us) Iterations
1                          3.00             2.00             4.00      10000
2                          3.50
oops                       1.00             1.00             1.00         10
"""


class BenchCollParse(unittest.TestCase):
    def test_driver_output(self):
        tables = benchcoll.parse(BENCH_OUTPUT.splitlines(keepends=True))
        self.assertEqual([(t.kind, t.coll, t.ranks, t.alg) for t in tables],
                         [("alg", "allreduce", 4, "native"),
                          ("alg", "allreduce", 4, "ring:segment=8192"),
                          ("alg", "allreduce", 4, "tuned"),
                          ("best", "allreduce", 4, None),
                          ("tuned", "allreduce", 4, "/x/shm4.tune")])
        self.assertEqual(tables[0].rows, [(4, 10.0, 9.0, 11.0, 1000),
                                          (1024, 20.0, 19.0, 21.0, 500)])
        self.assertEqual(tables[1].rows[1], (1024, 8.0, 7.5, 8.5, 800))
        self.assertEqual(tables[3].rows, [(4, 10.0, "native", 10.0, 1.0),
                                          (1024, None, "ring:segment=8192", 8.0, None)])
        self.assertEqual(tables[4].rows, [(4, 10.2, 10.0, 10.0, 1.02, 1.02),
                                          (1024, 8.1, 20.0, 8.0, 0.405, 1.013)])

    def test_job_output(self):
        tables = benchcoll.parse(JOB_OUTPUT.splitlines())
        self.assertEqual(len(tables), 1)
        t = tables[0]
        self.assertEqual((t.kind, t.coll, t.ranks, t.alg), ("alg", "bcast", 8, "as is"))
        self.assertEqual(t.rows, [(1, 3.0, 2.0, 4.0, 10000)])    # short and bad rows skipped

    def test_no_table(self):
        self.assertEqual(benchcoll.parse(["hello\n", "1 2 3 4 5\n", "# a comment\n"]), [])

    def test_read_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "allreduce.txt")
            with open(path, "w") as f:
                f.write(BENCH_OUTPUT)
            self.assertEqual(len(benchcoll.read(path)), 5)
            self.assertRaises(OSError, benchcoll.read, os.path.join(d, "missing.txt"))


class CollSummary(unittest.TestCase):
    """tools/bench-coll/summarize.py on the parser: files merged at their lowest averages."""

    def test_merge_and_table(self):
        second = BENCH_OUTPUT.replace("20.00            19.00", "16.00            15.00")
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, text in enumerate((BENCH_OUTPUT, second)):
                paths.append(os.path.join(d, f"run{i}.txt"))
                with open(paths[-1], "w") as f:
                    f.write(text)
            colls = {}
            self.assertEqual(coll_summary.read(paths[0], colls), 3)
            self.assertEqual(coll_summary.read(paths[1], colls), 3)
            self.assertEqual(colls["allreduce"]["native"], {4: 10.0, 1024: 16.0})
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(coll_summary.main(["summarize.py"] + paths), 0)
        # native 10 vs ring 12.5 at 4 B (native fastest), native 16 vs ring 8 at 1 KiB
        self.assertIn("| 4 B | native | 10.0 | 10.0 | 1.00 |", out.getvalue())
        self.assertIn("| 1 KiB | ring:segment=8192 | 16.0 | 8.0 | 2.00 |", out.getvalue())
        self.assertIn("Best ratio: 2.00 (ring:segment=8192 at 1 KiB: 8.0 µs against 16.0 µs "
                      "native)", out.getvalue())

    def test_no_table_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "empty.txt")
            open(path, "w").close()
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()):
                self.assertEqual(coll_summary.main(["summarize.py", path]), 1)
            self.assertIn("no autoopt-bench-coll table", err.getvalue())


class FakePaths:
    VERSION = "9.8.7"
    AUTOOPT_LIB = "/conf/libautoopt.so"
    YIELD_LIB = 42                       # not a string: counts as unset
    MPIEXEC = "/conf/mpiexec"


class Config(unittest.TestCase):
    def test_configured(self):
        self.assertEqual(config.configured("VERSION", FakePaths), "9.8.7")
        self.assertEqual(config.configured("YIELD_LIB", FakePaths), "")
        self.assertEqual(config.configured("PINGPONG", FakePaths), "")
        self.assertRaises(KeyError, config.configured, "NO_SUCH_NAME", FakePaths)

    def test_unconfigured_package(self):
        with mock.patch.object(config, "_PATHS", None):
            for name in config.NAMES:
                self.assertEqual(config.configured(name), "")
            with mock.patch.dict(os.environ, {"AUTOOPT_MPIEXEC": ""}):
                self.assertEqual(config.mpiexec(), "mpiexec.mpich")

    def test_lookup_order(self):
        env = {"AUTOOPT_LIB": "/env/libautoopt.so"}
        with mock.patch.dict(os.environ, env):
            look = config.lookup
            args = ("AUTOOPT_LIB",)
            self.assertEqual(look(*args, "/opt.so", "AUTOOPT_LIB", "/b", "src/x.so",
                                  paths=FakePaths), "/opt.so")
            self.assertEqual(look(*args, None, "AUTOOPT_LIB", "/b", "src/x.so",
                                  paths=FakePaths), "/env/libautoopt.so")
            self.assertEqual(look(*args, None, None, "/b", "src/x.so", paths=FakePaths),
                             "/b/src/x.so")
            self.assertEqual(look(*args, None, None, None, "src/x.so", paths=FakePaths),
                             "/conf/libautoopt.so")
        with mock.patch.dict(os.environ, {"AUTOOPT_LIB": ""}):
            self.assertEqual(config.lookup("AUTOOPT_LIB", "", "AUTOOPT_LIB", None,
                                           paths=FakePaths), "/conf/libautoopt.so")

    def test_mpiexec(self):
        with mock.patch.dict(os.environ, {"AUTOOPT_MPIEXEC": "my-mpiexec"}):
            self.assertEqual(config.mpiexec(FakePaths), "my-mpiexec")
        with mock.patch.dict(os.environ, {"AUTOOPT_MPIEXEC": ""}):
            self.assertEqual(config.mpiexec(FakePaths), "/conf/mpiexec")
            self.assertEqual(config.mpiexec_path(FakePaths), "/conf/mpiexec")  # not on PATH

    def test_generated_paths(self):
        """The build tree's _paths.py defines every name, as a string, with this version."""
        paths = importlib.import_module("autoopt_tools._paths")
        for name in config.NAMES:
            self.assertIsInstance(getattr(paths, name), str, name)
        if EXPECTED_VERSION:
            self.assertEqual(config.configured("VERSION"), EXPECTED_VERSION)
        self.assertIn("allreduce:ring", config.configured("COLL_ALGORITHMS").split())
        self.assertNotIn("allreduce:native", config.configured("COLL_ALGORITHMS").split())


class Cli(unittest.TestCase):
    class Boom(Exception):
        pass

    def status(self, exc, errors=()):
        def main(argv):
            self.assertEqual(argv, ["a", "b"])
            if exc is None:
                return 7
            raise exc
        err = io.StringIO()
        with redirect_stderr(err):
            return cli.run("prog", main, ["prog", "a", "b"], errors), err.getvalue()

    def test_statuses(self):
        self.assertEqual(self.status(None), (7, ""))
        self.assertEqual(self.status(cli.UsageError("bad -x")), (2, "prog: bad -x\n"))
        self.assertEqual(self.status(cli.Interrupted(signal.SIGTERM)),
                         (128 + signal.SIGTERM, "prog: SIGTERM\n"))
        self.assertEqual(self.status(BrokenPipeError()), (1, ""))
        self.assertEqual(self.status(self.Boom("no"), [(self.Boom, 77, "SKIP: ")]),
                         (77, "prog: SKIP: no\n"))
        self.assertRaises(self.Boom, self.status, self.Boom("no"))

    def test_stop_signals(self):
        old = {s: signal.getsignal(s) for s in cli.STOP_SIGNALS}
        try:
            cli.catch_stop_signals()
            with self.assertRaises(cli.Interrupted) as caught:
                os.kill(os.getpid(), signal.SIGHUP)
                time.sleep(1)
            self.assertEqual(caught.exception.signum, signal.SIGHUP)
            cli.ignore_stop_signals()
            os.kill(os.getpid(), signal.SIGINT)          # ignored: the test goes on
        finally:
            for s, h in old.items():
                signal.signal(s, h)

    @staticmethod
    def group_gone(pgid, timeout):
        """Whether process group pgid is empty within timeout seconds (the orphaned child
        may stay a zombie until its new parent reaps it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.05)
        return False

    def test_stop_group(self):
        # A shell that ignores SIGINT, with a child in its process group: SIGTERM ends both.
        proc = subprocess.Popen(["sh", "-c", "trap '' INT; sleep 30 & wait"],
                                start_new_session=True)
        time.sleep(0.3)
        t0 = time.monotonic()
        cli.stop_group(proc, (0.5, 5.0, 5.0))
        self.assertEqual(proc.returncode, -signal.SIGTERM)
        self.assertLess(time.monotonic() - t0, 5.0)
        self.assertTrue(self.group_gone(proc.pid, 5.0), "the shell's child is still there")
        cli.stop_group(proc, (1, 1, 1))                   # ended: nothing to do
        cli.stop_group(None, (1, 1, 1))


class ValidateQuickInput(unittest.TestCase):
    """autoopt-validate --quick's collective input for the BLACS tester, made from Debian's."""

    def test_collective_input(self):
        from autoopt_tools import validate
        src = os.path.join(validate.TESTS_DIR, "BLACS")
        if not os.path.isfile(os.path.join(src, "bt.dat")):
            self.skipTest(f"{src} not installed (scalapack-mpi-test)")
        with tempfile.TemporaryDirectory() as d:
            validate.blacs_collective_input(d)
            bt = open(os.path.join(d, "bt.dat")).read().splitlines()
            run = {l.split("Run ")[1].rstrip("?"): l.split()[0] for l in bt if "Run " in l}
            self.assertEqual(run, {"SDRV": "'F'", "BSBR": "'T'", "COMB": "'T'", "AUX": "'F'"})
            for name in ("bsbr.dat", "comb.dat"):
                got = open(os.path.join(d, name)).read().splitlines()
                orig = open(os.path.join(src, name)).read().splitlines()
                self.assertEqual(len(got), len(orig), name)
                i = next(k for k, l in enumerate(got) if "Number of topologies" in l)
                self.assertEqual(got[i].split()[0], "1", name)
                self.assertEqual(got[i + 1].split("TOP")[0].strip(), "' '", name)
                # everything else as Debian wrote it
                self.assertEqual(got[:i] + got[i + 2:], orig[:i] + orig[i + 2:], name)
            self.assertTrue(os.path.exists(os.path.join(d, "sdrv.dat")))

    def test_quick_programs(self):
        from autoopt_tools import validate
        o = {"programs": None, "quick": True}
        progs = {p.name: p for p in validate.programs(o)}
        self.assertEqual(list(progs), ["xCbtest", "xCbtest-coll", "netpipe"])
        self.assertEqual(progs["xCbtest"].kinds, ("p2p",))
        self.assertEqual(progs["xCbtest-coll"].kinds, ("coll",))
        self.assertEqual((progs["xCbtest"].lines, progs["xCbtest-coll"].lines), (22, 17))
        full = {p.name: p for p in validate.programs({"programs": None, "quick": False})}
        self.assertEqual(full["xCbtest"].kinds, ("p2p", "coll"))


class NetclusterOptions(unittest.TestCase):
    def test_sysctl(self):
        from autoopt_tools import netcluster
        o = netcluster.resolve_run_options(
            "run", {"ranks": 2, "sysctl": ["net.ipv4.tcp_slow_start_after_idle=0"]})
        self.assertEqual(o["sysctl"], ["net.ipv4.tcp_slow_start_after_idle=0"])
        for bad in ("foo", "net.ipv4.x", "=1", "net.ipv4.x=a b"):
            with self.assertRaises(cli.UsageError, msg=bad):
                netcluster.resolve_run_options("run", {"ranks": 2, "sysctl": [bad]})

    def test_congestion(self):
        # --congestion: auto (cubic where the machine allows it, else reno), machine, a name
        from autoopt_tools import netcluster
        self.assertEqual(netcluster.resolve_run_options("run", {"ranks": 2})["congestion"], "auto")
        with self.assertRaises(netcluster.UsageError):
            netcluster.resolve_run_options("run", {"ranks": 2, "congestion": "cu bic"})
        cc, desc = netcluster.congestion_policy({"congestion": "auto"})
        allowed = netcluster._sysctl_words("net.ipv4.tcp_allowed_congestion_control")
        self.assertEqual(cc, "cubic" if "cubic" in allowed else "reno")
        self.assertIn("the machine's is", desc)
        self.assertEqual(netcluster.congestion_policy({"congestion": "machine"})[0], None)
        self.assertEqual(netcluster.congestion_policy({"congestion": "reno"})[0], "reno")
        with self.assertRaises(netcluster.SetupError):
            netcluster.congestion_policy({"congestion": "nosuchcc"})

    def test_host_queue(self):
        # a host's sending side queues like a host's transmit queue (about 1000 frames), the
        # switch ports keep --latency; a bad size is refused naming the option
        from autoopt_tools import netcluster
        o = netcluster.resolve_run_options("run", {"ranks": 2})
        self.assertEqual((o["host_queue"], o["latency"]), ("1480kb", "50ms"))
        opts, cmd = netcluster.parse_options("run", ["-n", "2", "--host-queue", "3mb", "--",
                                                     "true"], netcluster.RUN_SPEC, True)
        self.assertEqual((opts["host_queue"], cmd), ("3mb", ["true"]))
        with self.assertRaises(cli.UsageError) as e:
            netcluster.parse_options("run", ["-n", "2", "--host-queue", "lots", "--", "true"],
                                     netcluster.RUN_SPEC, True)
        self.assertIn("--host-queue", str(e.exception))


class OutFile(unittest.TestCase):
    """outfile.py, the Python tools' one writer (issue 55, item 1): the rule of src/files.c."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, path, kind):
        before = os.lstat(path)
        want = (f"{path}: refused: it is {kind} (only a regular file, a new name or a symbolic "
                "link to one is written)")
        self.assertEqual(outfile.check(path), want)
        with self.assertRaises(OSError) as e:
            outfile.write_text(path, "new\n")
        self.assertEqual(str(e.exception), want)
        after = os.lstat(path)
        self.assertEqual((before.st_ino, before.st_mode, before.st_rdev),
                         (after.st_ino, after.st_mode, after.st_rdev))

    def test_special_files_refused(self):
        import socket
        os.mkfifo(os.path.join(self.d, "fifo"))
        self.refused(os.path.join(self.d, "fifo"), "a FIFO")
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(self.d, "sock"))
        self.refused(os.path.join(self.d, "sock"), "a socket")
        s.close()
        os.mkdir(os.path.join(self.d, "dir"))
        self.refused(os.path.join(self.d, "dir"), "a directory")
        if os.geteuid() == 0:
            os.mknod(os.path.join(self.d, "null"), 0o666 | 0o020000, os.makedev(1, 3))
            self.refused(os.path.join(self.d, "null"), "a character device")
        left = ["dir", "fifo", "null", "sock"] if os.geteuid() == 0 else ["dir", "fifo", "sock"]
        self.assertEqual(sorted(os.listdir(self.d)), left)     # no temporary file left

    def test_link_followed_mode_kept(self):
        target = os.path.join(self.d, "target")
        link = os.path.join(self.d, "link")
        with open(target, "w") as f:
            f.write("old\n")
        os.chmod(target, 0o640)
        os.symlink("target", link)
        self.assertIsNone(outfile.check(link))
        outfile.write_text(link, "new\n")
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertEqual(f.read(), "new\n")
        self.assertEqual(os.stat(target).st_mode & 0o7777, 0o640)
        self.assertEqual(sorted(os.listdir(self.d)), ["link", "target"])
        os.symlink(os.path.join(self.d, "nodir", "x"), os.path.join(self.d, "dangling"))
        self.assertIn("does not exist", outfile.check(os.path.join(self.d, "dangling")))

    def test_failed_block_changes_nothing(self):
        path = os.path.join(self.d, "f")
        outfile.write_text(path, "whole\n")
        with self.assertRaises(RuntimeError):
            with outfile.replacing(path) as f:
                f.write("half")
                raise RuntimeError("stop")
        with open(path) as f:
            self.assertEqual(f.read(), "whole\n")
        self.assertEqual(os.listdir(self.d), ["f"])


class Imports(unittest.TestCase):
    def test_every_module_imports(self):
        import autoopt_tools
        names = [m.name for m in pkgutil.iter_modules(autoopt_tools.__path__)]
        for tool in ("bench", "netcluster", "validate", "maps", "trace", "coll_summary"):
            self.assertIn(tool, names)
        for name in names:
            mod = importlib.import_module("autoopt_tools." + name)
            if name in ("bench", "netcluster", "validate", "maps", "trace", "coll_summary"):
                self.assertTrue(callable(getattr(mod, "run", None)), name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
