#!/usr/bin/env python3
# control_chars.py MPIEXEC PROGRAM SETTINGS_DEF: every setting of src/settings.def (the list is
# read from it, so a new setting is tried too) given a value with an ESC and a newline in it
# that makes MPI_Init fail: the job must stop with exactly one line that names the variable and
# holds no control byte (issue 55, item 7; docs/limits.md, "Bad input"); AUTOOPT_CACHE's bad
# directory is that one line too, and the run goes on.  The path-valued
# settings name a file or directory that cannot exist, so the failure is the file's.
# LD_PRELOAD holds libautoopt.so.  Prints "No Errors" or FAIL lines.
# SPDX-License-Identifier: GPL-2.0-or-later
import os
import re
import subprocess
import sys

mpiexec, prog, settings_def = sys.argv[1:4]
BAD = "x\033[31m\nbad"
# Paths under a directory that does not exist (and cannot be made: /proc refuses mkdir).
PATHS = {"TRACE": "/proc/aot-no\033[31m\ndir", "TUNING": "/nonexistent/t\033[31m\nx.tune",
         "TOPOLOGY": "/nonexistent/t\033[31m\nx.conf",
         "TUNE_SAVE": "/nonexistent/s\033[31m\nx.tune", "STATS": "/nonexistent/s\033[31m\nx.json"}
EXTRA = {"TUNE_SAVE": {"AUTOOPT_TUNE": "online"}}
# Settings whose bad value is one line and the run goes on (the cache of decisions, docs/cache.md):
# a directory below a regular file.
GOES_ON = {"CACHE": settings_def + "/c\033[31m\ndir"}

names = re.findall(r"^AOT_SETTING_(?!TOOL)\w+\((\w+)", open(settings_def).read(), re.M)
if len(names) < 30:
    print(f"FAIL: only {len(names)} settings read from {settings_def}")
    sys.exit(1)
errors = 0
for name in names:
    var = "AUTOOPT_" + name
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOOPT_")}
    env.update(EXTRA.get(name, {}))
    env[var] = GOES_ON.get(name, PATHS.get(name, BAD))
    try:
        r = subprocess.run([mpiexec, "-n", "2", prog], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        out = r.stdout
    except subprocess.TimeoutExpired:
        print(f"FAIL: {var}: no answer in 60 s")
        errors += 1
        continue
    lines = out.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if name in GOES_ON:
        lines = [l for l in lines if l != b"No Errors"]     # the program's own line
    why = None
    if name in GOES_ON and r.returncode != 0:
        why = f"exit status {r.returncode}: the run should go on"
    elif r.returncode == 0 and name not in GOES_ON:
        why = "exit status 0"
    elif len(lines) != 1:
        why = f"{len(lines)} lines"
    elif any(c < 0x20 or c == 0x7f for c in lines[0]):
        why = "a raw control byte"
    elif var.encode() not in lines[0]:
        why = "the line does not name the variable"
    if why:
        print(f"FAIL: {var}: {why}: {out!r}")
        errors += 1
    else:
        print(f"ok: {var}: {lines[0].decode(errors='replace')}")
print(f"{len(names)} settings tried")
if errors:
    print(f"Found {errors} errors")
    sys.exit(1)
print("No Errors")
