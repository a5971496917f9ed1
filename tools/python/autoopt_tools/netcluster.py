# autoopt-netcluster: run MPI jobs on an emulated 100 Mbit/s Ethernet cluster on one machine.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bin/autoopt-netcluster runs run() (cmake/AotPythonTools.cmake).  Python 3 standard library
# only.  See the manual below (autoopt-netcluster --help) and docs/netcluster.md.

import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

from . import cli, config, outfile
from .cli import Interrupted, UsageError
from .config import cores as core_count

PROG = "autoopt-netcluster"
VERSION = config.configured("VERSION")

MANUAL = """\
NAME
    autoopt-netcluster - an emulated Ethernet-switched cluster on one machine

SYNOPSIS
    autoopt-netcluster run -n RANKS [options] -- PROGRAM [ARGS...]
    autoopt-netcluster topology -n RANKS [--ppn N] [--switches N] [-o FILE]
    autoopt-netcluster check
    autoopt-netcluster calibrate [options]
    autoopt-netcluster idle [--json] [--samples N] [--wait SECONDS] [--after]
    autoopt-netcluster cleanup
    autoopt-netcluster SUBCOMMAND --help

DESCRIPTION
    Emulates a cluster of PCs on switched 100 Mbit/s Ethernet, the platform of autoopt's seed
    measurements, with Linux network namespaces.  Every host is a network namespace with its
    own hostname (UTS namespace) and one interface, eth0, the end of a veth pair whose other
    end is a port of a Linux bridge (one bridge is one switch).  With several switches the
    bridges are chained by veth pairs (the uplinks).  Every end of every link is shaped with
    the tbf qdisc (egress of both ends), so each direction of each link carries --rate and
    each uplink --uplink.  The bridges live in a namespace of their own; nothing is created in
    the machine's own network namespace, and the private subnet 10.<200+slot>.0.0/24 exists
    only inside the run's namespaces, so no traffic leaves the machine.

    The MPI job is started with MPICH's hydra launcher (mpiexec.mpich, fork launcher, MPMD
    form), every host's ranks wrapped in "ip netns exec HOST unshare --uts", with
    UCX_TLS=tcp,self and UCX_NET_DEVICES=eth0, so all traffic between hosts crosses the shaped
    veths.  Ranks on the same host (--ppn 2) talk over that host's loopback, unshaped.

    Every run uses a unique name prefix (aotnc<pid>-) and a subnet slot held for the whole run
    (an abstract UNIX socket, released by the kernel even when the run is killed), so runs at
    the same time do not collide.  Everything a run creates is removed when it ends, fails or
    is interrupted (SIGINT, SIGTERM, SIGHUP).  A run killed with SIGKILL cannot clean up; the
    next run (or "cleanup") removes what it left.

    The tbf shaper adds no propagation delay (the netem qdisc is not available on the
    project's machines), so small-message latency is lower than on real switched Ethernet;
    messages of about 16 KiB and more move at the nominal rate.  "calibrate" measures this.

SUBCOMMANDS
    run -n RANKS [options] -- PROGRAM [ARGS...]
        Build the cluster, run PROGRAM on RANKS ranks, tear the cluster down.  The exit status
        is PROGRAM's (as mpiexec reports it).  Options:
        -n, --ranks N        number of MPI ranks (1..256); required
        --ppn N              ranks per host (default 1): --ppn 2 emulates dual-core hosts
        --switches N         number of switches (default 1); hosts are split into N
                             contiguous groups, switch k joined to switch k+1 by an uplink
        --rate RATE          link rate of every host link (default 100mbit)
        --uplink RATE        rate of every switch-to-switch uplink (default: --rate)
        --burst SIZE         tbf bucket size (default 4kb; about 4 KB keeps messages from
                             16 KiB up at the nominal rate, see docs/netcluster.md)
        --latency TIME       queue limit of every switch port and uplink, as a delay
                             (default 50ms: 625 KB at 100 Mbit/s)
        --host-queue SIZE    queue limit of every host's sending side (default 1480kb:
                             about 1000 full-size frames, a Linux host's default
                             txqueuelen; with the 50 ms limit there, a host sending to
                             7 peers at once dropped packets and waited for TCP
                             retransmission timeouts, see docs/netcluster.md)
        --yield MODE         waiting policy: auto (default) preloads the yield-when-idle
                             library into every rank when ranks outnumber cores; on; off
        --yield-lib FILE     the yield-when-idle library (default: the build's
                             libautoopt-yield.so; env AUTOOPT_YIELD_LIB)
        --tcp-close MODE     MPI_Finalize workaround for UCX over TCP: auto (default) preloads
                             libautoopt-tcpclose.so into every rank when there are 2 or more
                             ranks, on, off.  Without it MPICH 4.0.2 + UCX 1.13 hang in
                             MPI_Finalize in a third to a half of all such runs (see
                             docs/netcluster.md); with it a rank waits at most
                             AUTOOPT_TCPCLOSE_MS (1000) ms for its endpoint closes
        --tcp-close-lib FILE that library (default: the build's; env AUTOOPT_TCPCLOSE_LIB)
        --preload FILE       add FILE to every rank's LD_PRELOAD (repeatable)
        --env VAR=VALUE      set VAR in every rank's environment (repeatable); LD_PRELOAD
                             given here, or inherited, applies to the ranks only
        --timeout SECONDS    stop the job after SECONDS (exit status 124)
        --topology-out FILE  write the run's topology.conf (see "topology") to FILE before
                             the job starts, and set AUTOOPT_TOPOLOGY to it in every rank's
                             environment (an --env AUTOOPT_TOPOLOGY=... given too wins)
        --build DIR          build directory to take the libraries from
        --congestion CC      TCP congestion control of every host: auto (default) is Linux's
                             default, cubic, where the machine lets a namespace choose it
                             (net.ipv4.tcp_allowed_congestion_control), else reno; machine
                             keeps what the machine uses (inherited); or a name.  With the
                             machine's bbr, many concurrent eager flows filled only 80-85 %
                             of the links; see docs/netcluster.md
        --sysctl KEY=VALUE   set a kernel parameter in every host namespace before the job
                             starts (repeatable; per-namespace keys such as
                             net.ipv4.tcp_slow_start_after_idle=0 or
                             net.ipv4.tcp_congestion_control=cubic, which must be in the
                             machine's net.ipv4.tcp_allowed_congestion_control)
        --link-stats FILE    after the job, write what every shaped link carried to FILE
                             (CSV: link, bytes, packets, drops, overlimits; hK-out is host
                             K's sending side, hK-in the switch port towards host K) and
                             each host's TCP segments and retransmissions (tcp,K,...)
        -q, --quiet          print only the waiting-policy and congestion-control lines,
                             not the set-up summary
        RATE is a tc rate: a number with bit, kbit, mbit, gbit, bps, kbps, mbps or gbps
        (bps = bytes per second).  SIZE is a tc size (4kb, 16kb, 1mb...), TIME a tc time.

    topology -n RANKS [--ppn N] [--switches N] [-o FILE]
        Print (or write to FILE) the Slurm topology.conf that describes the cluster "run"
        builds with the same -n, --ppn and --switches: one line per switch (bridge) br<s>
        with its hosts node<k> (the hostnames MPI_Get_processor_name reports), host k on
        switch k*switches//hosts.  The bridges form a chain, br0 - br1 - ..., written as a
        tree rooted at br0: "SwitchName=br0 Nodes=node[0-3] Switches=br1", so the switch
        distance of two hosts is the number of uplinks between them.  Needs no root.
        (docs/topology.md)

    check
        Say whether this machine can emulate a cluster: root, iproute2 (ip, tc), unshare,
        hostname, mpiexec.mpich, and a tbf qdisc actually attached to a veth in a throwaway
        namespace.  Prints each step and a verdict; exit status 0 (can) or 1 (cannot, with
        the reason).  Tests skip with that reason.

    calibrate [options]
        Measure a ping-pong curve from 1 B to --max-size between two emulated hosts with
        aot_pingpong, print the one-way time and payload bandwidth per size and a verdict.
        The emulation is TRUSTED only when the machine was idle, the one-way time never
        falls as messages grow (no size slower than the next larger one, within --noise),
        and from 64 KiB up the payload bandwidth is within +-TOLERANCE % of the nominal rate.
        First checks that the machine is idle (see "idle"); a busy machine is reported, the
        results are marked busy and the verdict is NOT TRUSTED.  Saves the calibration as
        JSON (--save).  Exit status 0 trusted, 1 not trusted.  Options:
        --rate, --uplink, --burst, --latency, --host-queue, --yield, --yield-lib, --tcp-close,
        --tcp-close-lib, --build, --timeout, --congestion   as for run
        --switches 1|2       put the two hosts on one switch (default) or on two switches,
                             so that the path crosses the uplink
        --max-size BYTES     largest message (default 4194304); sizes are powers of two
        --seconds S          time budget per size (default 0.25; at least 5 repetitions)
        --tolerance PCT      allowed deviation from the nominal rate (default 20)
        --noise PCT          timer noise allowed in the monotonicity test (default 5, and at
                             least 1 microsecond)
        --pingpong FILE      the ping-pong program (default: the build's aot_pingpong)
        --save FILE          where to write the JSON calibration (default
                             ./netcluster-calibration.json; "-" writes none)
        --wait-idle SECONDS  wait up to SECONDS for the machine to become idle first
        The idle check runs before and after the measurement (after: other runnable tasks
        only, since the measurement itself raised the load average); busy at either marks
        the results BUSY.

    idle [--json] [--samples N] [--interval S] [--wait SECONDS] [--after]
        Check that the machine is idle: the 1-minute load average (/proc/loadavg) and the
        number of other runnable tasks (state R in /proc/*/task/*/stat, not counting this
        process), sampled N times (default 10) every S seconds (default 0.1).  Idle means a
        load average below half the cores (at least 1.0) and on average fewer than 0.25 other
        runnable tasks.  --after (for a check right after a measurement, whose own ranks
        raised the load average) judges by the runnable tasks only.  --wait retries for up
        to SECONDS until the machine is idle.  Exit
        status 0 idle, 1 busy.  --json prints the result as one JSON object.

    cleanup
        Remove namespaces left by runs that were killed with SIGKILL (prefix aotnc<pid>- of a
        process that no longer runs), and the processes still inside them.

EXIT STATUS
    run: the program's exit status; 124 on --timeout; 125 when the cluster could not be set up
    or an option is bad (2 for usage errors); 128+N when stopped by signal N.
    check, idle: 0 yes, 1 no.  calibrate: 0 trusted, 1 not trusted or failed.

ENVIRONMENT
    AUTOOPT_YIELD_LIB    the yield-when-idle library (overridden by --yield-lib)
    AUTOOPT_TCPCLOSE_LIB the MPI_Finalize workaround library (overridden by --tcp-close-lib)
    AUTOOPT_TCPCLOSE_MS  how long a rank waits for its endpoint closes (default 1000)
    AUTOOPT_MPIEXEC      the MPICH launcher (default mpiexec.mpich)

FILES
    /run/netns/aotnc<pid>-*   the run's namespaces (removed at the end; /run/netns itself is
                              removed again when the run created it and it is empty)

EXAMPLES
    autoopt-netcluster check
    autoopt-netcluster run -n 8 -- ./examples/sor -n 1024 -i 50 -m sendrecv
    autoopt-netcluster run -n 8 --switches 2 --uplink 100mbit --env AUTOOPT_CONVERT=1 \\
        --preload build/src/libautoopt.so -- ./examples/sor -n 1024 -i 50
    autoopt-netcluster calibrate --save cal.json

SEE ALSO
    docs/netcluster.md, autoopt-bench(1), ip-netns(8), tc-tbf(8), unshare(1)
"""

SUBCOMMANDS = ("run", "topology", "check", "calibrate", "idle", "cleanup")

# ------------------------------------------------------------------ messages and errors


class SetupError(Exception):
    """The cluster could not be built or the job could not start."""


QUIET = False


def say(msg):
    if not QUIET:
        print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def warn(msg):
    print(f"{PROG}: warning: {msg}", file=sys.stderr, flush=True)


def subcommand_help(sub):
    """The manual's section for one subcommand (plus the synopsis)."""
    lines = MANUAL.splitlines()
    start = lines.index("SUBCOMMANDS") + 1
    out, keep = [], False
    for line in lines[start:]:
        if line and not line.startswith(" "):
            break
        if line.startswith("    ") and not line.startswith("     "):
            keep = line.split()[0] == sub
        if keep:
            out.append(line)
    return f"usage: {PROG} {sub} ...   (full manual: {PROG} --help)\n\n" + "\n".join(out) + "\n"


# ------------------------------------------------------------------ option parsing

def parse_options(sub, argv, spec, allow_command=False):
    """Parses argv against spec {option: (key, kind)}; kind is None for a flag, 'list' for a
    repeatable option, or a function turning the text into a value (raising ValueError with a
    message).  Returns (options dict, command list after "--")."""
    opts, command, i = {}, [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            if not allow_command:
                raise UsageError(f"{sub}: takes no program (unexpected '--')")
            command = argv[i + 1:]
            break
        if arg in ("-h", "--help"):
            sys.stdout.write(subcommand_help(sub))
            sys.exit(0)
        name, value = arg, None
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
        if name not in spec:
            if not arg.startswith("-") and allow_command:
                raise UsageError(f"{sub}: '{arg}': put the program after '--'")
            raise UsageError(f"{sub}: unknown option '{name}' (see {PROG} {sub} --help)")
        key, kind = spec[name]
        if kind is None:
            if value is not None:
                raise UsageError(f"{sub}: option '{name}' takes no value")
            opts[key] = True
            i += 1
            continue
        if value is None:
            if i + 1 >= len(argv):
                raise UsageError(f"{sub}: option '{name}' needs a value")
            value = argv[i + 1]
            i += 2
        else:
            i += 1
        if kind == "list":
            opts.setdefault(key, []).append(value)
            continue
        try:
            opts[key] = kind(value)
        except ValueError as e:
            raise UsageError(f"{sub}: {name} '{value}': {e}") from None
    return opts, command


def _number_range(number, what, lo, hi):
    def conv(text):
        try:
            v = number(text)
        except ValueError:
            raise ValueError(f"expected {what} {lo}..{hi}") from None
        if not lo <= v <= hi:
            raise ValueError(f"expected {what} {lo}..{hi}")
        return v
    return conv


def int_range(lo, hi):
    return _number_range(lambda text: int(text, 10), "an integer", lo, hi)


def float_range(lo, hi):
    return _number_range(float, "a number", lo, hi)


def choice(*values):
    def conv(text):
        if text not in values:
            raise ValueError("expected one of " + ", ".join(values))
        return text
    return conv


_RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
               "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "tbps": 8e12}


def rate(text):
    """A tc rate ("100mbit") -> (text for tc, bits per second)."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([a-zA-Z]*)", text)
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _RATE_UNITS:
        raise ValueError("expected a rate such as 100mbit, 1gbit or 12500kbps")
    bits = float(m.group(1)) * _RATE_UNITS[unit]
    if not 8e3 <= bits <= 1e11:
        raise ValueError("expected a rate between 8kbit and 100gbit")
    return (f"{int(bits)}bit", bits)


def tc_size(text):
    m = re.fullmatch(r"([0-9]+)(b|kb|k|mb|m|kbit|mbit)?", text.lower())
    if not m:
        raise ValueError("expected a size such as 4kb, 16kb or 1mb")
    return text.lower()


def tc_time(text):
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?(s|ms|us|msec|usec|sec)", text.lower()):
        raise ValueError("expected a time such as 50ms or 1s")
    return text.lower()


def env_assignment(text):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", text, re.S):
        raise ValueError("expected VAR=VALUE")
    return text


def existing_file(text):
    if not os.path.isfile(text):
        raise ValueError("no such file")
    return os.path.abspath(text)


def existing_dir(text):
    if not os.path.isdir(text):
        raise ValueError("no such directory")
    return os.path.abspath(text)


# ------------------------------------------------------------------ machine facts

def mpiexec_path():
    cand = config.mpiexec()
    found = shutil.which(cand)
    if not found:
        raise SetupError(f"MPICH launcher '{cand}' not found (install the Debian package mpich)")
    return found


def default_yield_lib(build_dir):
    return config.lookup("YIELD_LIB", None, "AUTOOPT_YIELD_LIB", build_dir,
                         os.path.join("tools", "libautoopt-yield.so"))


def default_tcpclose_lib(build_dir):
    return config.lookup("TCPCLOSE_LIB", None, "AUTOOPT_TCPCLOSE_LIB", build_dir,
                         os.path.join("tools", "libautoopt-tcpclose.so"))


def default_pingpong(build_dir):
    return config.lookup("PINGPONG", None, None, build_dir, os.path.join("tools", "aot_pingpong"))


def idle_sample(samples=10, interval=0.1, judge_load=True):
    """Samples the machine's load.  Returns a dict (see the manual's "idle").  judge_load=False
    right after a measurement: the 1-minute load average then mostly shows that measurement's
    own busy-polling ranks, so only the other runnable tasks decide."""
    me = os.getpid()
    counts = []
    for k in range(samples):
        if k:
            time.sleep(interval)
        n = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:
                try:
                    with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                        stat = f.read()
                except OSError:
                    continue
                close = stat.rfind(b")")
                if close >= 0 and stat[close + 2:close + 3] == b"R":
                    n += 1
        counts.append(n)
    with open("/proc/loadavg") as f:
        fields = f.read().split()
    load = [float(x) for x in fields[:3]]
    cores = core_count()
    mean = sum(counts) / len(counts)
    load_limit = max(1.0, cores / 2)
    idle = (load[0] < load_limit or not judge_load) and mean < 0.25
    reasons = []
    if load[0] >= load_limit and judge_load:
        reasons.append(f"1-minute load average {load[0]:.2f} >= {load_limit:.1f}")
    if mean >= 0.25:
        reasons.append(f"{mean:.2f} other runnable tasks on average (max {max(counts)})")
    return {
        "idle": idle,
        "loadavg": load,
        "load_limit": load_limit,
        "cores": cores,
        "samples": samples,
        "interval_s": interval,
        "load_judged": judge_load,
        "runnable_other_mean": round(mean, 3),
        "runnable_other_max": max(counts),
        "summary": ("idle" if idle else "BUSY") +
                   f": load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
                   f"{mean:.2f} other runnable tasks on average over {samples} samples"
                   + ("" if idle else " (" + "; ".join(reasons) + ")"),
    }


# ------------------------------------------------------------------ commands and locks

def run_cmd(argv, what, input_text=None):
    """Runs a set-up command; raises SetupError with its stderr on failure."""
    try:
        p = subprocess.run(argv, input=input_text, capture_output=True, text=True)
    except FileNotFoundError:
        raise SetupError(f"{what}: '{argv[0]}' not found (install iproute2)") from None
    if p.returncode != 0:
        detail = (p.stderr or p.stdout).strip().splitlines()
        raise SetupError(f"{what}: {' '.join(argv[:4])}... failed: "
                         f"{detail[-1] if detail else 'exit status %d' % p.returncode}")
    return p.stdout


class AbstractLock:
    """A lock that is an abstract UNIX socket name: no file, released by the kernel when the
    process dies.  Abstract names are per network namespace; all runs hold them in the
    machine's own namespace."""

    def __init__(self, name):
        self.name = "\0autoopt-netcluster/" + name
        self.sock = None

    def try_acquire(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(self.name)
        except OSError:
            s.close()
            return False
        self.sock = s
        return True

    def acquire(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while not self.try_acquire():
            if time.monotonic() > deadline:
                raise SetupError(f"waited {timeout:.0f} s for the lock '{self.name[1:]}' "
                                 "held by another run")
            time.sleep(0.05)

    def release(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


NAME_RE = re.compile(r"^aotnc([0-9]+)-")
NETNS_DIR = "/run/netns"
SLOTS = 56       # subnets 10.200.0.0/24 .. 10.255.0.0/24


def list_netns():
    try:
        return sorted(os.listdir(NETNS_DIR))
    except FileNotFoundError:
        return []


def process_alive_as_us(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        return False
    return PROG.encode() in cmd


def kill_netns_processes(ns, sig=signal.SIGKILL, wait=5.0):
    """Kills every process inside namespace ns and waits for them to go."""
    deadline = time.monotonic() + wait
    while True:
        p = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
        pids = [int(x) for x in p.stdout.split() if x.isdigit() and int(x) != os.getpid()]
        if not pids or time.monotonic() > deadline:
            return pids
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def delete_netns(names):
    """Deletes namespaces (after killing what runs inside).  Returns the names that stayed."""
    left = []
    for ns in names:
        kill_netns_processes(ns)
        p = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True)
        if p.returncode != 0 and os.path.exists(os.path.join(NETNS_DIR, ns)):
            left.append(ns)
    return left


def remove_stale(announce=True):
    """Removes the namespaces of runs that no longer exist.  Call with the global lock held."""
    stale = [ns for ns in list_netns()
             if NAME_RE.match(ns) and int(NAME_RE.match(ns).group(1)) != os.getpid()
             and not process_alive_as_us(int(NAME_RE.match(ns).group(1)))]
    if stale:
        if announce:
            warn("removing namespaces left by a run that was killed: " + " ".join(stale))
        left = delete_netns(stale)
        if left:
            warn("could not remove: " + " ".join(left))
    return stale


def remove_netns_dir_if_ours(created_dir):
    """iproute2 makes /run/netns a bind mount of itself on first use; undo that when this run
    created it and it is empty again.  Call with the global lock held."""
    if not created_dir or not os.path.isdir(NETNS_DIR) or os.listdir(NETNS_DIR):
        return
    for _ in range(4):     # "ip netns" may have mounted it more than once
        if subprocess.run(["umount", NETNS_DIR], capture_output=True).returncode != 0:
            break
    try:
        os.rmdir(NETNS_DIR)
    except OSError:
        pass


# ------------------------------------------------------------------ the cluster

def switch_of(host, hosts, switches):
    """The switch (bridge br<s>) of host k: hosts split into contiguous groups."""
    return host * switches // hosts


def host_name(host):
    """The hostname of host k, as MPI_Get_processor_name reports it (build_launch sets it)."""
    return f"node{host}"


def topology_conf(hosts, switches, ppn=1):
    """The Slurm topology.conf of the cluster (docs/topology.md): switch br<s> and its hosts,
    the chain of bridges written as a tree rooted at br0."""
    def names(lo, hi):
        return host_name(lo) if lo == hi else f"node[{lo}-{hi}]"
    lines = [f"# topology.conf written by {PROG}: {hosts} hosts ({ppn} "
             f"rank{'s' if ppn > 1 else ''} per host) on {switches} "
             f"switch{'es' if switches > 1 else ''}",
             "# The bridges are a chain br0 - br1 - ...: written as a tree rooted at br0, so the",
             "# switch distance of two hosts is the number of uplinks between them."]
    for s in range(switches):
        members = [k for k in range(hosts) if switch_of(k, hosts, switches) == s]
        line = f"SwitchName=br{s} Nodes={names(members[0], members[-1])}"
        if s + 1 < switches:
            line += f" Switches=br{s + 1}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def write_topology(path, hosts, switches, ppn):
    try:
        outfile.write_text(path, topology_conf(hosts, switches, ppn))
    except OSError as e:
        raise SetupError(f"cannot write the topology file '{path}': {e.strerror or e}") from None


class Cluster:
    """Namespaces, veths, bridges and shapers of one run."""

    def __init__(self, hosts, switches, rate_tc, uplink_tc, burst, latency, host_queue):
        if switches > hosts:
            raise UsageError(f"--switches {switches} is more than the {hosts} hosts")
        self.hosts, self.switches = hosts, switches
        self.rate_tc, self.uplink_tc = rate_tc, uplink_tc
        self.burst, self.latency, self.host_queue = burst, latency, host_queue
        self.prefix = f"aotnc{os.getpid()}"
        self.sw_ns = f"{self.prefix}-sw"
        self.host_ns = [f"{self.prefix}-h{k}" for k in range(hosts)]
        self.created = []
        self.slot = None
        self.slot_lock = None
        self.created_netns_dir = False

    def switch_of(self, host):
        return switch_of(host, self.hosts, self.switches)

    def address(self, host):
        return f"10.{200 + self.slot}.0.{host + 1}"

    @property
    def subnet(self):
        return f"10.{200 + self.slot}.0.0/24"

    def _take_slot(self):
        start = os.getpid() % SLOTS
        for k in range(SLOTS):
            slot = (start + k) % SLOTS
            lock = AbstractLock(f"slot/{slot}")
            if lock.try_acquire():
                self.slot, self.slot_lock = slot, lock
                return
        raise SetupError(f"all {SLOTS} subnets are in use by other runs")

    def up(self):
        glock = AbstractLock("global")
        glock.acquire()
        try:
            remove_stale()
            self._take_slot()
            self.created_netns_dir = not os.path.isdir(NETNS_DIR)
            names = [self.sw_ns] + self.host_ns
            # Record first: a failure half-way still removes whatever exists.
            self.created = list(names)
            run_cmd(["ip", "-batch", "-"], "creating namespaces",
                    "".join(f"netns add {n}\n" for n in names))
        finally:
            glock.release()

        tc_args = f"tbf rate {self.rate_tc} burst {self.burst} latency {self.latency}"
        up_args = f"tbf rate {self.uplink_tc} burst {self.burst} latency {self.latency}"
        # a host's own sending side queues like a host's transmit queue, not like a switch port
        host_args = f"tbf rate {self.rate_tc} burst {self.burst} limit {self.host_queue}"
        # veth pairs created directly in their namespaces: host end eth0, switch end hK.
        run_cmd(["ip", "-batch", "-"], "creating host links",
                "".join(f"link add name eth0 netns {h} type veth peer name h{k} netns {self.sw_ns}\n"
                        for k, h in enumerate(self.host_ns)))
        sw = ["link set lo up"]
        for s in range(self.switches):
            sw += [f"link add name br{s} type bridge stp_state 0",
                   f"link set br{s} addrgenmode none", f"link set br{s} up"]
        for s in range(self.switches - 1):
            sw += [f"link add name up{s}a type veth peer name up{s}b",
                   f"link set up{s}a addrgenmode none", f"link set up{s}b addrgenmode none",
                   f"link set up{s}a master br{s} up", f"link set up{s}b master br{s + 1} up"]
        for k in range(self.hosts):
            sw += [f"link set h{k} addrgenmode none",
                   f"link set h{k} master br{self.switch_of(k)} up"]
        run_cmd(["ip", "-n", self.sw_ns, "-batch", "-"], "building the switches",
                "\n".join(sw) + "\n")
        shape = [f"qdisc replace dev h{k} root {tc_args}" for k in range(self.hosts)]
        for s in range(self.switches - 1):
            shape += [f"qdisc replace dev up{s}a root {up_args}",
                      f"qdisc replace dev up{s}b root {up_args}"]
        run_cmd(["tc", "-n", self.sw_ns, "-batch", "-"], "shaping the switch ports",
                "\n".join(shape) + "\n")
        for k, h in enumerate(self.host_ns):
            run_cmd(["ip", "-n", h, "-batch", "-"], f"configuring host {k}",
                    "link set lo up\nlink set eth0 addrgenmode none\n"
                    f"addr add {self.address(k)}/24 dev eth0\nlink set eth0 up\n")
            run_cmd(["tc", "-n", h, "qdisc", "replace", "dev", "eth0", "root"] + host_args.split(),
                    f"shaping host {k}")
        self._wait_carrier()

    def _wait_carrier(self, timeout=10.0):
        """A veth reports its carrier (operational state UP) a moment after both ends are up;
        UCX ignores an interface that is not running yet ("network device 'eth0' is not
        available")."""
        deadline = time.monotonic() + timeout
        pending = list(self.host_ns)
        while pending:
            pending = [h for h in pending
                       if " UP " not in run_cmd(["ip", "-n", h, "-br", "link", "show", "dev",
                                                 "eth0"], "link state") + " "]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise SetupError(f"eth0 of {pending[0]} did not come up within {timeout:g} s")
            time.sleep(0.02)

    def set_sysctls(self, assignments, option="--sysctl"):
        """Sets each KEY=VALUE in every host namespace (SetupError naming the key)."""
        for h in self.host_ns:
            for kv in assignments:
                r = subprocess.run(["ip", "netns", "exec", h, "sysctl", "-qw", kv],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    raise SetupError(f"{option} {kv}: "
                                     f"{(r.stderr or r.stdout).strip() or 'failed'}")

    def link_stats(self):
        """CSV lines: what every shaped link carried so far, and each host's TCP counters."""
        def qdiscs(ns, dev):
            out = run_cmd(["tc", "-n", ns, "-s", "-j", "qdisc", "show", "dev", dev],
                          "link statistics")
            q = [x for x in json.loads(out or "[]") if x.get("kind") == "tbf"]
            return q[0] if q else {}
        links = [x for k, h in enumerate(self.host_ns)
                 for x in ((f"h{k}-out", h, "eth0"), (f"h{k}-in", self.sw_ns, f"h{k}"))]
        links += [(f"up{s_}{end}", self.sw_ns, f"up{s_}{end}")
                  for s_ in range(self.switches - 1) for end in "ab"]
        rows = ["link,bytes,packets,drops,overlimits"]
        for name, ns, dev in links:
            q = qdiscs(ns, dev)
            rows.append(",".join([name] + [str(q.get(f, 0)) for f in
                                           ("bytes", "packets", "drops", "overlimits")]))
        rows.append("tcp,host,out_segs,retrans_segs")
        for k, h in enumerate(self.host_ns):
            snmp = run_cmd(["ip", "netns", "exec", h, "cat", "/proc/net/snmp"], "TCP counters")
            tcp = [l.split()[1:] for l in snmp.splitlines() if l.startswith("Tcp:")]
            v = dict(zip(tcp[0], tcp[1])) if len(tcp) == 2 else {}
            rows.append(f"tcp,{k},{v.get('OutSegs', '')},{v.get('RetransSegs', '')}")
        return "\n".join(rows) + "\n"

    def down(self):
        """Removes everything; safe to call twice and after a partial up()."""
        left = delete_netns(self.created)
        self.created = []
        glock = AbstractLock("global")
        try:
            glock.acquire(timeout=10.0)
            remove_netns_dir_if_ours(self.created_netns_dir)
        except SetupError:
            pass
        finally:
            glock.release()
        if self.slot_lock:
            self.slot_lock.release()
            self.slot_lock = None
        if left:
            warn("could not remove namespaces: " + " ".join(left) + f" (run '{PROG} cleanup')")
        return not left


# ------------------------------------------------------------------ signals

def _child_setup():
    # The launcher gets SIGTERM if this script dies without cleaning up (SIGKILL).
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)       # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def stop_job(proc):
    """Stops the launcher and everything it started (its own process group)."""
    cli.stop_group(proc, (3.0, 2.0, 2.0))


# ------------------------------------------------------------------ run

RUN_SPEC = {
    "-n": ("ranks", int_range(1, 256)), "--ranks": ("ranks", int_range(1, 256)),
    "--ppn": ("ppn", int_range(1, 64)),
    "--switches": ("switches", int_range(1, 16)),
    "--rate": ("rate", rate), "--uplink": ("uplink", rate),
    "--burst": ("burst", tc_size), "--latency": ("latency", tc_time),
    "--host-queue": ("host_queue", tc_size),
    "--yield": ("yield", choice("auto", "on", "off")),
    "--yield-lib": ("yield_lib", existing_file),
    "--tcp-close": ("tcp_close", choice("auto", "on", "off")),
    "--tcp-close-lib": ("tcp_close_lib", existing_file),
    "--preload": ("preload", "list"),
    "--env": ("env", "list"),
    "--timeout": ("timeout", float_range(0.1, 7 * 86400)),
    "--topology-out": ("topology_out", str),
    "--build": ("build", existing_dir),
    "--sysctl": ("sysctl", "list"),
    "--congestion": ("congestion", str),
    "--link-stats": ("link_stats", str),
    "-q": ("quiet", None), "--quiet": ("quiet", None),
}


def resolve_run_options(sub, opts):
    o = {"ppn": 1, "switches": 1, "rate": rate("100mbit"), "burst": "4kb",
         "latency": "50ms", "host_queue": "1480kb", "yield": "auto", "tcp_close": "auto",
         "preload": [], "env": [], "sysctl": [], "link_stats": None, "timeout": None,
         "build": None,     # build: only when given (else configured paths)
         "quiet": False, "congestion": "auto"}
    o.update(opts)
    if not re.fullmatch(r"[a-z0-9_]+", o["congestion"]):
        raise UsageError(f"{sub}: --congestion '{o['congestion']}': expected auto, machine or "
                         "the name of a TCP congestion control, e.g. cubic")
    o.setdefault("uplink", o["rate"])
    for e in o["env"]:
        try:
            env_assignment(e)
        except ValueError as err:
            raise UsageError(f"{sub}: --env '{e}': {err}") from None
    for e in o["sysctl"]:
        if not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_-]+)+=\S+", e):
            raise UsageError(f"{sub}: --sysctl '{e}': expected KEY=VALUE, e.g. "
                             "net.ipv4.tcp_slow_start_after_idle=0")
    for f in o["preload"]:
        if not os.path.isfile(f):
            raise UsageError(f"{sub}: --preload '{f}': no such file")
    o["preload"] = [os.path.abspath(f) for f in o["preload"]]
    return o


def waiting_policy(o, ranks):
    """Returns (yield library or None, one-line description)."""
    cores = core_count()
    mode = o["yield"]
    use = mode == "on" or (mode == "auto" and ranks > cores)
    why = {"on": "--yield on", "off": "--yield off",
           "auto": f"{ranks} ranks {'>' if ranks > cores else '<='} {cores} cores"}[mode]
    if not use:
        return None, f"busy-polling (MPICH default; {why})"
    lib = o.get("yield_lib") or default_yield_lib(o["build"])
    if not lib or not os.path.isfile(lib):
        raise SetupError(f"the yield-when-idle library '{lib or 'libautoopt-yield.so'}' does not "
                         "exist (build autoopt, or give --yield-lib FILE or --yield off)")
    return lib, f"yield-when-idle ({why}; {lib})"


def _sysctl_words(key):
    try:
        with open("/proc/sys/" + key.replace(".", "/")) as f:
            return f.read().split()
    except OSError:
        return []


def congestion_policy(o):
    """Returns (the congestion control to set in every host namespace or None, one-line
    description).  A namespace may choose only what the machine allows
    (net.ipv4.tcp_allowed_congestion_control; reno always)."""
    machine = (_sysctl_words("net.ipv4.tcp_congestion_control") or ["?"])[0]
    allowed = set(_sysctl_words("net.ipv4.tcp_allowed_congestion_control")) | {"reno"}
    want = o["congestion"]
    if want == "machine":
        return None, f"{machine} (the machine's, --congestion machine)"
    if want == "auto":
        cc = "cubic" if "cubic" in allowed else "reno"
        why = ("Linux's default" if cc == "cubic" else
               "cubic, Linux's default, is not in the machine's "
               "net.ipv4.tcp_allowed_congestion_control")
        return cc, f"{cc} ({why}; the machine's is {machine})"
    if want not in allowed:
        raise SetupError(f"--congestion {want}: not in the machine's "
                         f"net.ipv4.tcp_allowed_congestion_control ({' '.join(sorted(allowed))}); "
                         f"as root: sysctl -w net.ipv4.tcp_allowed_congestion_control="
                         f"\"{' '.join(sorted(allowed | {want}))}\"")
    return want, f"{want} (--congestion; the machine's is {machine})"


def tcp_close_policy(o, ranks):
    """Returns (workaround library or None, one-line description)."""
    mode = o["tcp_close"]
    if mode == "off" or (mode == "auto" and ranks < 2):
        return None, ("off" + (" (--tcp-close off)" if mode == "off" else " (one rank)"))
    lib = o.get("tcp_close_lib") or default_tcpclose_lib(o["build"])
    if not lib or not os.path.isfile(lib):
        raise SetupError(f"the MPI_Finalize workaround library '{lib or 'libautoopt-tcpclose.so'}'"
                         " does not exist (build autoopt with libucx-dev, or give "
                         "--tcp-close-lib FILE or --tcp-close off)")
    return lib, f"on ({lib})"


def build_launch(cluster, o, ranks, command, yield_lib, close_lib=None):
    """The mpiexec command line: one MPMD segment per host."""
    env = {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "eth0"}
    if o.get("topology_out"):
        env["AUTOOPT_TOPOLOGY"] = os.path.abspath(o["topology_out"])
    preload = []
    inherited = os.environ.get("LD_PRELOAD", "")
    preload += [p for p in re.split(r"[:\s]+", inherited) if p]
    for e in o["env"]:
        var, val = e.split("=", 1)
        if var == "LD_PRELOAD":
            preload += [p for p in re.split(r"[:\s]+", val) if p]
        else:
            env[var] = val
    preload += o["preload"]
    if close_lib:
        preload.append(close_lib)
    if yield_lib:
        preload.append(yield_lib)
    argv = [mpiexec_path(), "-launcher", "fork"]
    for var, val in env.items():
        argv += ["-genv", var, val]
    first = True
    for k, ns in enumerate(cluster.host_ns):
        n_here = min(o["ppn"], ranks - k * o["ppn"])
        if not first:
            argv.append(":")
        first = False
        argv += ["-n", str(n_here), "ip", "netns", "exec", ns, "unshare", "--uts", "--",
                 "sh", "-c", 'hostname "$0" && exec "$@"', host_name(k)]
        if preload:
            argv += ["env", "LD_PRELOAD=" + ":".join(preload)]
        argv += command
    return argv


def launcher_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)     # applied to the ranks only (see build_launch)
    return env


def run_job(o, command, capture=None, announce=True):
    """Builds the cluster, runs command, tears down.  capture: a callable given each line of
    the job's stdout (then stdout is not passed through).  Returns the exit status."""
    ranks = o["ranks"]
    hosts = (ranks + o["ppn"] - 1) // o["ppn"]
    yield_lib, policy = waiting_policy(o, ranks)
    print(f"{PROG}: waiting policy: {policy}", file=sys.stderr, flush=True)
    close_lib, close_desc = tcp_close_policy(o, ranks)
    congestion, congestion_desc = congestion_policy(o)
    print(f"{PROG}: TCP congestion control: {congestion_desc}", file=sys.stderr, flush=True)
    cluster = Cluster(hosts, o["switches"], o["rate"][0], o["uplink"][0], o["burst"],
                      o["latency"], o["host_queue"])
    proc = None
    status = 125
    t_start = time.monotonic()
    try:
        cluster.up()
        if congestion:
            cluster.set_sysctls([f"net.ipv4.tcp_congestion_control={congestion}"],
                                option="--congestion")
        if o.get("sysctl"):
            cluster.set_sysctls(o["sysctl"])
        if announce:
            say(f"{ranks} ranks on {hosts} hosts ({o['ppn']} per host), {o['switches']} "
                f"switch{'es' if o['switches'] > 1 else ''}, links {o['rate'][1] / 1e6:g} Mbit/s"
                + (f", uplinks {o['uplink'][1] / 1e6:g} Mbit/s" if o['switches'] > 1 else "")
                + f", tbf burst {o['burst']}, queues {o['latency']} (switch ports), "
                f"{o['host_queue']} (hosts), subnet {cluster.subnet}, namespaces "
                f"{cluster.prefix}-* (set up in {time.monotonic() - t_start:.2f} s); "
                f"MPI_Finalize workaround {close_desc}")
        argv = build_launch(cluster, o, ranks, command, yield_lib, close_lib)
        try:
            proc = subprocess.Popen(argv, env=launcher_env(), start_new_session=True,
                                    preexec_fn=_child_setup,
                                    stdout=subprocess.PIPE if capture else None,
                                    text=True if capture else None)
        except OSError as e:
            raise SetupError(f"cannot start {argv[0]}: {e.strerror}") from None
        deadline = time.monotonic() + o["timeout"] if o["timeout"] else None
        if capture:
            for line in proc.stdout:
                capture(line)
                if deadline and time.monotonic() > deadline:
                    break
        while True:
            try:
                status = proc.wait(timeout=None if deadline is None
                                   else max(0.0, deadline - time.monotonic()))
                break
            except subprocess.TimeoutExpired:
                warn(f"--timeout {o['timeout']:g} s reached: stopping the job")
                stop_job(proc)
                status = 124
                break
        if status < 0:
            status = 128 - status
    except Interrupted as e:
        cli.ignore_stop_signals()
        warn(f"{e}: stopping the job and removing the cluster")
        stop_job(proc)
        status = 128 + e.signum
    except SetupError as e:
        cli.ignore_stop_signals()
        print(f"{PROG}: {e}", file=sys.stderr, flush=True)
        stop_job(proc)
        status = 125
    except BaseException:
        cli.ignore_stop_signals()
        stop_job(proc)
        raise
    finally:
        cli.ignore_stop_signals()
        stop_job(proc)
        if proc is not None and proc.stdout:
            proc.stdout.close()
        if o.get("link_stats") and cluster.created:
            try:
                outfile.write_text(o["link_stats"], cluster.link_stats())
            except (OSError, SetupError, ValueError) as e:
                warn(f"--link-stats {o['link_stats']}: {e}")
        cluster.down()
        cli.catch_stop_signals()
    return status


def cmd_run(argv):
    global QUIET
    opts, command = parse_options("run", argv, RUN_SPEC, allow_command=True)
    if "ranks" not in opts:
        raise UsageError("run: -n RANKS is required")
    if not command:
        raise UsageError("run: no program given (put it after '--')")
    o = resolve_run_options("run", opts)
    QUIET = o["quiet"]
    prog = command[0]
    if "/" in prog and not os.access(prog, os.X_OK):
        raise UsageError(f"run: program '{prog}' does not exist or is not executable")
    if "/" not in prog and not shutil.which(prog):
        raise UsageError(f"run: program '{prog}' not found in PATH")
    if os.geteuid() != 0:
        raise SetupError("run: needs root to create network namespaces (see "
                         f"'{PROG} check')")
    if o.get("topology_out"):
        hosts = (o["ranks"] + o["ppn"] - 1) // o["ppn"]
        if o["switches"] > hosts:
            raise UsageError(f"run: --switches {o['switches']} is more than the {hosts} hosts")
        write_topology(o["topology_out"], hosts, o["switches"], o["ppn"])
        say(f"topology written to {o['topology_out']} (AUTOOPT_TOPOLOGY in every rank)")
    return run_job(o, command)


# ------------------------------------------------------------------ topology

TOPOLOGY_SPEC = {
    "-n": ("ranks", int_range(1, 256)), "--ranks": ("ranks", int_range(1, 256)),
    "--ppn": ("ppn", int_range(1, 64)),
    "--switches": ("switches", int_range(1, 16)),
    "-o": ("out", str), "--output": ("out", str),
}


def cmd_topology(argv):
    opts, _ = parse_options("topology", argv, TOPOLOGY_SPEC)
    if "ranks" not in opts:
        raise UsageError("topology: -n RANKS is required")
    ppn, switches = opts.get("ppn", 1), opts.get("switches", 1)
    hosts = (opts["ranks"] + ppn - 1) // ppn
    if switches > hosts:
        raise UsageError(f"topology: --switches {switches} is more than the {hosts} hosts")
    if opts.get("out"):
        write_topology(opts["out"], hosts, switches, ppn)
    else:
        sys.stdout.write(topology_conf(hosts, switches, ppn))
    return 0


# ------------------------------------------------------------------ check

def cmd_check(argv):
    parse_options("check", argv, {})
    ok = True

    def step(name, good, detail):
        nonlocal ok
        print(f"  {'ok  ' if good else 'FAIL'} {name}: {detail}")
        ok = ok and good
        return good

    print(f"{PROG}: can this machine emulate a cluster?")
    if not step("root", os.geteuid() == 0,
                "running as root" if os.geteuid() == 0 else
                "not root: network namespaces need root"):
        print(f"{PROG}: NO: not root")
        return 1
    for tool, pkg in (("ip", "iproute2"), ("tc", "iproute2"), ("unshare", "util-linux"),
                      ("hostname", "hostname"),
                      (config.mpiexec(),
                       "mpich")):
        path = shutil.which(tool)
        if not step(os.path.basename(tool), bool(path),
                    path or f"not found (install the Debian package {pkg})"):
            print(f"{PROG}: NO: {tool} is missing")
            return 1
    ns = f"aotnc{os.getpid()}-check"
    glock = AbstractLock("global")
    created_dir = False
    reason = None
    try:
        glock.acquire()
        created_dir = not os.path.isdir(NETNS_DIR)
        try:
            run_cmd(["ip", "netns", "add", ns], "namespace")
            step("namespace", True, f"created {ns}")
            run_cmd(["ip", "-n", ns, "link", "add", "name", "a", "type", "veth", "peer", "name", "b"],
                    "veth pair")
            step("veth", True, "veth pair inside the namespace")
            run_cmd(["ip", "-n", ns, "link", "add", "name", "br", "type", "bridge"], "bridge")
            step("bridge", True, "Linux bridge inside the namespace")
            run_cmd(["tc", "-n", ns, "qdisc", "replace", "dev", "a", "root", "tbf", "rate",
                     "100mbit", "burst", "4kb", "latency", "50ms"], "tbf qdisc")
            out = run_cmd(["tc", "-n", ns, "qdisc", "show", "dev", "a"], "tbf qdisc")
            if "tbf" not in out:
                raise SetupError("tbf qdisc: attached, but 'tc qdisc show' does not list it")
            step("tbf", True, "tbf qdisc attached to the veth (100mbit, burst 4kb)")
            run_cmd(["ip", "netns", "exec", ns, "unshare", "--uts", "--", "sh", "-c",
                     'hostname aotnc-check && test "$(hostname)" = aotnc-check'], "exec")
            step("exec", True, "ip netns exec + unshare --uts + hostname work")
        except SetupError as e:
            reason = str(e)
            step("emulation", False, reason)
    except Interrupted:
        cli.ignore_stop_signals()
        reason = "interrupted"
    finally:
        cli.ignore_stop_signals()
        delete_netns([ns])
        if not glock.sock:
            glock.acquire()
        remove_netns_dir_if_ours(created_dir)
        glock.release()
        cli.catch_stop_signals()
    if reason:
        print(f"{PROG}: NO: {reason}")
        return 1
    print(f"{PROG}: YES: this machine can emulate a cluster ({core_count()} cores)")
    return 0


# ------------------------------------------------------------------ idle

def cmd_idle(argv):
    opts, _ = parse_options("idle", argv, {
        "--json": ("json", None), "--samples": ("samples", int_range(1, 1000)),
        "--interval": ("interval", float_range(0.0, 10.0)),
        "--wait": ("wait", float_range(0.0, 3600.0)),
        "--after": ("after", None)})
    deadline = time.monotonic() + opts.get("wait", 0.0)
    while True:
        r = idle_sample(opts.get("samples", 10), opts.get("interval", 0.1),
                        judge_load=not opts.get("after"))
        if r["idle"] or time.monotonic() >= deadline:
            break
        if not opts.get("json"):
            print(f"{PROG}: {r['summary']}; waiting", file=sys.stderr, flush=True)
        time.sleep(2.0)
    if opts.get("json"):
        print(json.dumps(r))
    else:
        print(f"{PROG}: machine {r['summary']}")
    return 0 if r["idle"] else 1


# ------------------------------------------------------------------ calibrate

CAL_SPEC = {k: v for k, v in RUN_SPEC.items()
            if k in ("--rate", "--uplink", "--burst", "--latency", "--host-queue", "--yield",
                     "--yield-lib", "--tcp-close", "--tcp-close-lib", "--build", "--timeout",
                     "--congestion")}
CAL_SPEC.update({
    "--switches": ("switches", int_range(1, 2)),
    "--max-size": ("max_size", int_range(1024, 1 << 30)),
    "--seconds": ("seconds", float_range(0.0, 60.0)),
    "--tolerance": ("tolerance", float_range(0.0, 100.0)),
    "--noise": ("noise", float_range(0.0, 100.0)),
    "--pingpong": ("pingpong", existing_file),
    "--save": ("save", str),
    "--wait-idle": ("wait_idle", float_range(0.0, 86400.0)),
})

LINE_RE = re.compile(r"size=(\d+) reps=(\d+) oneway_us_median=([\d.]+) oneway_us_min=([\d.]+)"
                     r" oneway_us_max=([\d.]+) mbit_s=([\d.]+)")


def judge_curve(points, nominal_bits, tolerance, noise):
    """Returns (trusted, reasons, per-point notes) for a list of measured points."""
    reasons, notes = [], {}
    for a, b in zip(points, points[1:]):
        slack = max(a["oneway_us_median"] * noise / 100.0, 1.0)
        if a["oneway_us_median"] > b["oneway_us_median"] + slack:
            reasons.append(f"{a['bytes']} B ({a['oneway_us_median']:.1f} us) is slower than "
                           f"{b['bytes']} B ({b['oneway_us_median']:.1f} us)")
            notes.setdefault(a["bytes"], []).append("slower than next")
    big = [p for p in points if p["bytes"] >= 65536]
    if not big:
        reasons.append("no size of 64 KiB or more was measured")
    for p in big:
        dev = (p["mbit_s"] * 1e6 - nominal_bits) / nominal_bits * 100.0
        p["deviation_pct"] = round(dev, 1)
        if abs(dev) > tolerance:
            reasons.append(f"{p['bytes']} B moves at {p['mbit_s']:.1f} Mbit/s, {dev:+.1f} % "
                           f"from the nominal {nominal_bits / 1e6:g} Mbit/s")
            notes.setdefault(p["bytes"], []).append(f"{dev:+.0f}% off nominal")
    return not reasons, reasons, notes


def human_size(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def cmd_calibrate(argv):
    opts, _ = parse_options("calibrate", argv, CAL_SPEC)
    o = resolve_run_options("calibrate", opts)
    o["ranks"], o["ppn"] = 2, 1
    o["switches"] = opts.get("switches", 1)
    max_size = opts.get("max_size", 4 << 20)
    seconds = opts.get("seconds", 0.25)
    tolerance = opts.get("tolerance", 20.0)
    noise = opts.get("noise", 5.0)
    save = opts.get("save", "netcluster-calibration.json")
    pingpong = opts.get("pingpong") or default_pingpong(o["build"])
    if not pingpong or not os.access(pingpong, os.X_OK):
        raise UsageError(f"calibrate: ping-pong program '{pingpong or 'aot_pingpong'}' does not "
                         "exist (build autoopt or give --pingpong FILE)")
    if save != "-" and outfile.check(save):
        raise UsageError(f"calibrate: --save {outfile.check(save)}")
    if os.geteuid() != 0:
        raise SetupError("calibrate: needs root to create network namespaces")

    print(f"{PROG}: checking that the machine is idle...", file=sys.stderr, flush=True)
    idle = idle_sample()
    deadline = time.monotonic() + opts.get("wait_idle", 0.0)
    while not idle["idle"] and time.monotonic() < deadline:
        print(f"{PROG}: machine {idle['summary']}; waiting", file=sys.stderr, flush=True)
        time.sleep(5.0)
        idle = idle_sample()
    print(f"{PROG}: machine {idle['summary']}", file=sys.stderr, flush=True)
    if not idle["idle"]:
        warn("the machine is busy: the results will be marked BUSY and not trusted "
             "(background load adds scheduler stalls of ~10 ms)")

    nominal = o["rate"][1]
    path = ("two hosts on one switch" if o["switches"] == 1 else
            f"two hosts on two switches (uplink {o['uplink'][1] / 1e6:g} Mbit/s)")
    print(f"{PROG}: ping-pong 1 B .. {human_size(max_size)}, {path}, links "
          f"{nominal / 1e6:g} Mbit/s, tbf burst {o['burst']}", file=sys.stderr, flush=True)
    points = []
    header = {}

    def on_line(line):
        line = line.rstrip("\n")
        m = LINE_RE.search(line)
        if m:
            p = {"bytes": int(m.group(1)), "reps": int(m.group(2)),
                 "oneway_us_median": float(m.group(3)), "oneway_us_min": float(m.group(4)),
                 "oneway_us_max": float(m.group(5)), "mbit_s": float(m.group(6))}
            points.append(p)
            print(f"{PROG}: measured {human_size(p['bytes']):>8}: {p['oneway_us_median']:10.1f} us"
                  f"  {p['mbit_s']:8.2f} Mbit/s", file=sys.stderr, flush=True)
        elif line.startswith("aot_pingpong: ranks="):
            header["hosts"] = line.split(None, 1)[1]
        elif line.startswith("aot_pingpong:"):
            header["result"] = line.split(None, 1)[1]

    status = run_job(o, [pingpong, "-a", "1", "-b", str(max_size), "-t", str(seconds)],
                     capture=on_line, announce=True)
    if status != 0 or not points or header.get("result") != "No Errors":
        print(f"{PROG}: calibration failed: ping-pong exit status {status}"
              + (f", {header['result']}" if header.get("result") else ""), file=sys.stderr)
        return 1

    idle_after = idle_sample(judge_load=False)
    print(f"{PROG}: machine after the measurement: {idle_after['summary']}", file=sys.stderr,
          flush=True)
    trusted, reasons, notes = judge_curve(points, nominal, tolerance, noise)
    busy = not idle["idle"] or not idle_after["idle"]
    if busy:
        trusted = False
        reasons.insert(0, "the machine was busy " + ("before" if not idle["idle"] else "")
                       + (" and " if not idle["idle"] and not idle_after["idle"] else "")
                       + ("after" if not idle_after["idle"] else "") + " the measurement")

    print()
    print(f"Calibration of the emulated cluster: {path}, {nominal / 1e6:g} Mbit/s links, "
          f"tbf burst {o['burst']}")
    print(f"{'size':>10} {'reps':>6} {'one-way us':>12} {'min us':>10} {'Mbit/s':>9} "
          f"{'% nominal':>10}  note")
    for p in points:
        pct = p["mbit_s"] * 1e6 / nominal * 100.0
        print(f"{human_size(p['bytes']):>10} {p['reps']:>6} {p['oneway_us_median']:>12.1f} "
              f"{p['oneway_us_min']:>10.1f} {p['mbit_s']:>9.2f} {pct:>9.0f}%  "
              + ", ".join(notes.get(p["bytes"], [])) + (" BUSY" if busy else ""))
    verdict = "TRUSTED" if trusted else "NOT TRUSTED"
    print(f"Verdict: {verdict}" + ("" if trusted else ": " + "; ".join(reasons)))
    print(f"Machine before: {idle['summary']}")
    print(f"Machine after:  {idle_after['summary']}")

    result = {
        "format": "autoopt-netcluster-calibration", "version": 1,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"hostname": socket.gethostname(), "kernel": os.uname().release,
                    "cores": core_count()},
        "topology": {"hosts": 2, "switches": o["switches"], "path": path,
                     "rate": o["rate"][0], "rate_bits_per_s": nominal,
                     "uplink": o["uplink"][0], "burst": o["burst"], "latency": o["latency"],
                     "host_queue": o["host_queue"],
                     "ucx_tls": "tcp,self"},
        "program": os.path.basename(pingpong), "max_size": max_size,
        "idle": idle, "idle_after": idle_after, "busy": busy,
        "tolerance_pct": tolerance, "noise_pct": noise,
        "points": points,
        "small_message_oneway_us": points[0]["oneway_us_median"],
        "large_message_mbit_s": points[-1]["mbit_s"],
        "verdict": "trusted" if trusted else "not trusted",
        "reasons": reasons,
    }
    if save != "-":
        with outfile.replacing(save) as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        print(f"Saved: {save}")
    return 0 if trusted else 1


# ------------------------------------------------------------------ cleanup

def cmd_cleanup(argv):
    parse_options("cleanup", argv, {})
    if os.geteuid() != 0:
        raise SetupError("cleanup: needs root")
    glock = AbstractLock("global")
    glock.acquire()
    try:
        cli.ignore_stop_signals()
        had_dir = os.path.isdir(NETNS_DIR)
        stale = remove_stale(announce=False)
        if stale:
            print(f"{PROG}: removed " + " ".join(stale))
            remove_netns_dir_if_ours(had_dir)
        else:
            print(f"{PROG}: nothing to clean up")
    finally:
        glock.release()
    return 0


# ------------------------------------------------------------------ main

def main(argv):
    cli.catch_stop_signals()
    if not argv or argv[0] in ("-h", "--help"):
        if not argv:
            print(f"usage: {PROG} run|topology|check|calibrate|idle|cleanup ... (see {PROG} "
                  "--help)",
                  file=sys.stderr)
            return 2
        sys.stdout.write(MANUAL)
        return 0
    if argv[0] == "--version":
        print(f"{PROG} {VERSION or '(unconfigured)'}")
        return 0
    sub = argv[0]
    if sub not in SUBCOMMANDS:
        raise UsageError(f"unknown subcommand '{sub}' (expected one of "
                         f"{', '.join(SUBCOMMANDS)}; see {PROG} --help)")
    return {"run": cmd_run, "topology": cmd_topology, "check": cmd_check,
            "calibrate": cmd_calibrate,
            "idle": cmd_idle, "cleanup": cmd_cleanup}[sub](argv[1:])


def run(argv):
    """The program's exit status (bin/autoopt-netcluster)."""
    return cli.run(PROG, main, argv, [(SetupError, 125, "")])
