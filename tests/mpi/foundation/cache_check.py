#!/usr/bin/env python3
"""cache_check.py SCENARIO MPIEXEC LIB YIELD SOR WORKDIR: the cache of decisions across runs
(docs/cache.md; issue 56, item 3), with the sor example's real point-to-point verdicts.

  jobs     4 jobs of 2 ranks (sor of 4 sizes: 4 distinct chain keys) end at once into one cache
           directory: every job's entry is kept, and an entry another machine wrote before is
           too.
  damaged  a truncated file and a garbage file: one line on stderr naming the file, the run
           goes on (results checked), the file is rewritten whole; an unwritable directory:
           one line, the run goes on; AUTOOPT_CACHE=off: no file, no directory (the default
           directory, under XDG_CACHE_HOME, is created otherwise).
  reuse    a verdict cached under another host shape is not used (0 hits, and it stays in the
           file); a second run reads the first run's verdict (hits > 0, the chain starts from
           it); every run's checksum is bit-identical to a native run's (sor -V also compares
           with the serial SOR on rank 0).

Prints "No Errors", or FAIL lines.
SPDX-License-Identifier: GPL-2.0-or-later
"""
import json
import os
import re
import shutil
import subprocess
import sys

HEADER = "autoopt-cache 1\n"
errors = 0


def fail(msg):
    global errors
    errors += 1
    print("FAIL: " + msg)


def run(args, env_extra, preload=True, timeout=120, wait=True):
    env = dict(os.environ)
    env.pop("AUTOOPT_CACHE", None)      # each scenario says what it wants
    env_extra = dict(env_extra)
    use_yield = env_extra.pop("_yield", None)
    env.update(env_extra)
    if preload:
        env["LD_PRELOAD"] = LIB + ((":" + YIELD) if use_yield else "")
    else:
        env.pop("LD_PRELOAD", None)
    cmd = [MPIEXEC, "-n", "2", SOR] + args
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return p
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def finish(p, timeout=120):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def checksum(out):
    m = re.search(r"checksum=(0x[0-9a-f]+)", out)
    return m.group(1) if m else None


def entries(path):
    """The file's entries as {key: value}, or None when it is not a whole cache file."""
    try:
        text = open(path, encoding="latin-1").read()
    except OSError:
        return None
    if not text.startswith(HEADER) or not text.endswith("\n"):
        return None
    got = {}
    for line in text[len(HEADER):].splitlines():
        f = line.split("\t")
        if len(f) != 3 or not f[0].isdigit():
            return None
        got[f[1]] = f[2]
    return got


def cache_lines(err):
    return [l for l in err.splitlines() if "AUTOOPT_CACHE" in l]


def p2p_keys(got):
    return sorted(k for k in got if k.startswith("p2p "))


SOR_ARGS = ["-n", "96", "-i", "150", "-V"]


def native_checksum(args):
    rc, out, err = run(args, {}, preload=False)
    if rc != 0 or not checksum(out):
        fail("native run: status %d, %s %s" % (rc, out, err))
    return checksum(out)


def checked(what, res, want):
    rc, out, err = res
    if rc != 0:
        fail("%s: exit status %d: %s" % (what, rc, err[-2000:]))
    elif checksum(out) != want:
        fail("%s: checksum %s, native %s" % (what, checksum(out), want))
    return res


def scenario_jobs(w):
    d = os.path.join(w, "cache")
    os.makedirs(d, mode=0o700)
    other = "p2p m00000000-h9x9-n00000000 b00 18 s0123456789abcdef"
    with open(os.path.join(d, "decisions-v1.txt"), "w") as f:
        f.write(HEADER + "1000\t%s\tguarded\n" % other)
    sizes = ["64", "80", "96", "112"]
    want = {n: native_checksum(["-n", n, "-i", "120", "-V"]) for n in sizes}
    procs = [(n, run(["-n", n, "-i", "120", "-V"], {"AUTOOPT_CACHE": d, "_yield": "1"},
                     wait=False)) for n in sizes]
    for n, p in procs:
        checked("job n=%s" % n, finish(p), want[n])
    got = entries(os.path.join(d, "decisions-v1.txt"))
    if got is None:
        fail("the cache file is not a whole cache file after 4 jobs")
        return
    keys = [k for k in p2p_keys(got) if k != other]
    if len(keys) != 4:
        fail("4 jobs of 4 sizes left %d entries of theirs, want 4: %s" % (len(keys), keys))
    if got.get(other) != "guarded":
        fail("the entry written before the jobs was lost: %s" % got)
    left = sorted(os.listdir(d))
    if left != ["decisions-v1.lock", "decisions-v1.txt"]:
        fail("files left in the cache directory: %s" % left)


def scenario_damaged(w):
    want = native_checksum(SOR_ARGS)
    cut = HEADER + "1000\tp2p a b 2 s1\tnative\n1001\tp2p a b 2 s2\tcop"
    garbage = "\x7fELF\x02\x01\x01\x00garbage\x00\xff\nmore garbage\n"
    for name, text in (("truncated", cut), ("garbage", garbage)):
        d = os.path.join(w, name)
        os.makedirs(d, mode=0o700)
        path = os.path.join(d, "decisions-v1.txt")
        with open(path, "w", encoding="latin-1") as f:
            f.write(text)
        _, _, err = checked(name, run(SOR_ARGS, {"AUTOOPT_CACHE": d}), want)
        lines = cache_lines(err)
        if len(lines) != 1 or path not in lines[0]:
            fail("%s file: want one line naming %s, got: %s" % (name, path, lines))
        got = entries(path)
        if got is None:
            fail("%s file not rewritten whole: %r" % (name, open(path, "rb").read()[:200]))
        elif name == "truncated" and got.get("p2p a b 2 s1") != "native":
            fail("truncated file: its good line was lost: %s" % got)
        print("%s: %s" % (name, lines))
        # the rewritten file is read without a word
        _, _, err = checked(name + ", again", run(SOR_ARGS, {"AUTOOPT_CACHE": d}), want)
        if cache_lines(err):
            fail("%s file, second run: %s" % (name, cache_lines(err)))
    # a directory that cannot be made: a regular file in its path
    blocker = os.path.join(w, "blocker")
    open(blocker, "w").close()
    _, _, err = checked("unwritable", run(SOR_ARGS, {"AUTOOPT_CACHE": blocker + "/cache"}), want)
    lines = cache_lines(err)
    if len(lines) != 1 or blocker not in lines[0]:
        fail("unwritable directory: want one line naming it, got: %s" % lines)
    print("unwritable: %s" % lines)
    # off: nothing read or written, not even the default directory
    xdg = os.path.join(w, "xdg")
    os.makedirs(xdg, mode=0o700)
    _, _, err = checked("off", run(SOR_ARGS, {"AUTOOPT_CACHE": "off", "XDG_CACHE_HOME": xdg,
                                              "HOME": w}), want)
    if os.listdir(xdg) or os.path.exists(os.path.join(w, ".cache")) or cache_lines(err):
        fail("AUTOOPT_CACHE=off left %s %s" % (os.listdir(xdg), cache_lines(err)))
    # the default: $XDG_CACHE_HOME/autoopt, created private
    checked("default", run(SOR_ARGS, {"XDG_CACHE_HOME": xdg, "HOME": w}), want)
    path = os.path.join(xdg, "autoopt", "decisions-v1.txt")
    if entries(path) is None:
        fail("the default directory has no cache file: %s" % os.listdir(xdg))
    elif os.stat(os.path.dirname(path)).st_mode & 0o777 != 0o700:
        fail("the default directory is not private: %o" % os.stat(os.path.dirname(path)).st_mode)


def stats_of(w, name):
    with open(os.path.join(w, name)) as f:
        return json.load(f)


def scenario_reuse(w):
    d = os.path.join(w, "cache")
    path = os.path.join(d, "decisions-v1.txt")
    want = native_checksum(SOR_ARGS)
    checked("first run", run(SOR_ARGS, {"AUTOOPT_CACHE": d}), want)
    got = entries(path) or {}
    keys = p2p_keys(got)
    if len(keys) != 1:
        fail("first run: want one chain verdict, got %s" % got)
        return
    # the same verdict under another host shape (2 hosts of 1 rank): not used
    real = keys[0]
    moved = re.sub(r"-h1x2-", "-h2x1-", real)
    if moved == real:
        fail("the key has no host shape h1x2: %s" % real)
        return
    with open(path, "w") as f:
        f.write(HEADER + "1000\t%s\t%s\n" % (moved, got[real]))
    checked("other shape", run(SOR_ARGS, {"AUTOOPT_CACHE": d,
                                          "AUTOOPT_STATS": os.path.join(w, "s1.json")}), want)
    s = stats_of(w, "s1.json")
    if s["counters"].get("cache.hits") != 0 or s["cache"]["entries"] != 1:
        fail("a verdict of another host shape was used: %s" % s["cache"])
    got = entries(path) or {}
    if moved not in got or real not in got:
        fail("after the run under the other shape's entry, want both keys: %s" % got)
    # the second run of this shape starts from the first run's verdict
    checked("second run", run(SOR_ARGS, {"AUTOOPT_CACHE": d,
                                         "AUTOOPT_STATS": os.path.join(w, "s2.json")}), want)
    s = stats_of(w, "s2.json")
    print("second run: cache %s" % s["cache"])
    if s["cache"]["hits"] < 1 or s["counters"].get("cache.hits", 0) < 2:
        fail("the second run found no verdict in the cache: %s" % s["cache"])
    if real not in s["cache"]["hit_keys"]:
        fail("the second run's hits do not name the chain's key %s: %s" % (real, s["cache"]))


def main():
    global MPIEXEC, LIB, YIELD, SOR
    scenario, MPIEXEC, LIB, YIELD, SOR, w = sys.argv[1:7]
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w, mode=0o700)
    {"jobs": scenario_jobs, "damaged": scenario_damaged, "reuse": scenario_reuse}[scenario](w)
    if not errors:
        print("No Errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
