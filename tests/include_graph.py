#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""include_graph.py: the module boundaries of docs/design.md, checked on the #include lines.

Reads every `#include "..."` line of the .c and .h files of src/, intercept/, paging/, mech/,
chains/, collectives/ and tools/lib/ (the offline tools' library), and of the tools that run the
collectives (tools/tune/, tools/bench-coll/), finds the folder of the header it names, and fails
(exit 1), naming the file and line, when

  - src/ includes a header of paging/, mech/, chains/, collectives/ or intercept/;
  - chains/ includes a header of paging/ other than its public aot_paging.h, or a header of
    mech/ other than its interface aot_mech.h and the inline fast-path half native_inline.h;
  - paging/ includes a header of chains/ or mech/;
  - mech/ (the point-to-point mechanisms below the policy) includes a header of any folder
    but src/: a mechanism never calls the policy (chains/) nor the interceptor;
  - collectives/ includes a header of paging/ or chains/;
  - a folder of the runtime (src/, intercept/, paging/, mech/, chains/, collectives/) includes a
    header
    of tools/lib/: the tools' library sits above the collectives and stays out of
    libautoopt.so;
  - tools/tune/ or tools/bench-coll/ includes a collectives/coll_*.h header: those tools reach
    the collectives only through the narrow header of tools/lib/ (aot_tools.h); of
    collectives/ they may include aot_tuning_file.h, which the runtime shares;
  - a file of src/, collectives/ or tools/lib/ includes the umbrella aot.h: src/'s headers each
    say one thing (aot_log.h, aot_stats.h, ...), and those folders include the ones they use;
    aot.h, which includes them all, is for intercept/, paging/ and chains/;
  - the graph of folders (an edge A -> B: a file of A includes a header of B) has a cycle.

A quoted header is looked for as the compiler does: first in the includer's own folder, then in
the folders the build puts on the include path (each module's root, src/include).  The headers
the build generates (intercept/gen_wrappers.py, in build/generated) belong to intercept/.  One
of them is allowed everywhere and makes no edge: aot_functions.h is the generated list of MPI
function ids (AOT_FN_MPI_Send ...), derived from MPICH's mpi_proto.h, with the classes
wrappers.spec gives them (AOT_FC_*, the table aot_function_classes); it holds no code and
includes nothing, so it is data every folder may name, like mpi.h (src/aot_stats.h includes it).

With --generated DIR, the generated files there are read too (as files of intercept/).  With
--self-test, each rule is checked on a small tree made to break it (test unit.include_graph.rules).

Usage: include_graph.py [--root SOURCE_DIR] [--generated BUILD/generated] | --self-test
"""
import argparse
import os
import re
import sys

MODULES = ["src", "intercept", "paging", "mech", "chains", "collectives", "tools/lib"]
# The folders of libautoopt.so; the library of the offline tools (tools/lib) is none of them.
RUNTIME = ("src", "intercept", "paging", "mech", "chains", "collectives")
# The headers of mech/ that chains/ may include: the interface and the inline fast-path half.
MECH_FOR_CHAINS = ("aot_mech.h", "native_inline.h")
TOOLS = "tools/lib"
# The programs that run the collectives through the tools' library, never past it.  Read like
# the modules, but their headers are not on anyone's include path.
PROGRAMS = ("tools/tune", "tools/bench-coll")
# Outputs of intercept/gen_wrappers.py (intercept/CMakeLists.txt).
GENERATED = {"aot_functions.h", "aot_route.h", "aot_wrappers.c", "inject_mpi.h"}
# Headers any folder may include without an edge (see the docstring).
SHARED_DATA = {"aot_functions.h"}
# src/'s umbrella header and the folders that include the specific headers instead.
UMBRELLA = "aot.h"
NO_UMBRELLA = ("src", "collectives", TOOLS)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module_of(root, path):
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    for mod in MODULES + list(PROGRAMS):
        if rel == mod or rel.startswith(mod + "/"):
            return mod
    return rel.split("/")[0]


def sources(root, generated):
    for mod in MODULES + list(PROGRAMS):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, mod)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".c", ".h")):
                    yield os.path.join(dirpath, name), mod
    if generated and os.path.isdir(generated):
        for name in sorted(os.listdir(generated)):
            if name in GENERATED and name.endswith((".c", ".h")):
                yield os.path.join(generated, name), "intercept"


def header_index(root):
    """name -> set of modules holding a header of that name on the include path."""
    index = {}
    search = [os.path.join(root, m) for m in MODULES] + [os.path.join(root, "src", "include")]
    for d in search:
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if os.path.isfile(os.path.join(d, name)):
                index.setdefault(name, set()).add(module_of(root, d))
    for name in GENERATED:
        index.setdefault(name, set()).add("intercept")
    return index


def violation(src, dst, header):
    """A message when an include from folder src of header (in folder dst) breaks a rule."""
    if header == UMBRELLA and dst == "src" and src in NO_UMBRELLA:
        return ("%s/ includes the umbrella %s: include the headers of src/ it uses "
                "(aot_log.h, aot_stats.h, ...)" % (src, header))
    if header in SHARED_DATA or src == dst:
        return None
    if dst == TOOLS and src in RUNTIME:
        return ("%s/ includes %s of %s/: the runtime never includes the offline tools' library"
                % (src, header, dst))
    if src in PROGRAMS and dst == "collectives" and header.startswith("coll_"):
        return ("%s/ includes %s of collectives/: a tool reaches the collectives through "
                "%s/aot_tools.h" % (src, header, TOOLS))
    if src == "src":
        return "src/ includes %s of %s/: src/ knows nothing above it" % (header, dst)
    if src == "chains" and dst == "paging" and header != "aot_paging.h":
        return ("chains/ includes paging's private %s: only paging's public aot_paging.h" %
                header)
    if src == "chains" and dst == "mech" and header not in MECH_FOR_CHAINS:
        return ("chains/ includes mech's private %s: only %s" %
                (header, " and ".join(MECH_FOR_CHAINS)))
    if src == "paging" and dst in ("chains", "mech"):
        return "paging/ includes %s of %s/: paging knows only src/" % (header, dst)
    if src == "mech" and dst != "src":
        return ("mech/ includes %s of %s/: a mechanism knows only src/ and never calls the "
                "policy" % (header, dst))
    if src == "collectives" and dst in ("paging", "chains"):
        return "collectives/ includes %s of %s/: collectives know src/ and PMPI only" % (
            header, dst)
    return None


def find_cycle(edges):
    """A cycle of the graph {a: {b, ...}} as a list of nodes, or None."""
    state = {}

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def check(root, generated):
    """(problems, edges, number of files) of the tree at root."""
    index = header_index(root)
    problems = []
    edges = {}          # (a, b) -> first "file:line" that makes the edge
    nfiles = 0
    for path, mod in sources(root, generated):
        nfiles += 1
        shown = os.path.relpath(path, root) if path.startswith(root + os.sep) else path
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                header = m.group(1)
                where = "%s:%d" % (shown, lineno)
                if os.path.isfile(os.path.join(os.path.dirname(path), header)):
                    dst = mod                    # found beside the includer
                else:
                    owners = index.get(os.path.basename(header), set())
                    if not owners:
                        continue                 # not ours (a system or third-party header)
                    if len(owners) > 1:
                        problems.append("%s: \"%s\" exists in %s: which one is meant depends on "
                                        "the include path" % (where, header,
                                                              ", ".join(sorted(owners))))
                        continue
                    dst = next(iter(owners))
                why = violation(mod, dst, os.path.basename(header))
                if why:
                    problems.append("%s: %s" % (where, why))
                if dst != mod and os.path.basename(header) not in SHARED_DATA:
                    edges.setdefault((mod, dst), where)
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    cycle = find_cycle(graph)
    if cycle:
        steps = ["%s -> %s (%s)" % (a, b, edges[(a, b)]) for a, b in zip(cycle, cycle[1:])]
        problems.append("folder-level include cycle: " + "; ".join(steps))
    return problems, edges, nfiles


# One tree per rule, each breaking it once: file -> its #include lines.  Every header named
# exists in the folder given by its path.
SELF_TESTS = [
    ("src/ includes", {"src/a.c": ["aot_coll.h"], "collectives/aot_coll.h": []}),
    ("only paging's public", {"chains/a.c": ["paging.h"], "paging/paging.h": []}),
    ("paging knows only src/", {"paging/a.c": ["chains.h"], "chains/chains.h": []}),
    ("paging knows only src/", {"paging/a.c": ["aot_mech.h"], "mech/aot_mech.h": []}),
    ("a mechanism knows only src/", {"mech/a.c": ["chains.h"], "chains/chains.h": []}),
    ("a mechanism knows only src/", {"mech/a.c": ["aot_paging.h"], "paging/aot_paging.h": []}),
    ("only aot_mech.h and native_inline.h", {"chains/a.c": ["copy_impl.h"],
                                            "mech/copy_impl.h": []}),
    ("src/ includes", {"src/a.c": ["aot_mech.h"], "mech/aot_mech.h": []}),
    ("collectives know src/ and PMPI only", {"collectives/a.c": ["chains.h"],
                                              "chains/chains.h": []}),
    ("includes the umbrella aot.h", {"collectives/a.c": ["aot.h"], "src/aot.h": []}),
    ("includes the umbrella aot.h", {"src/a.c": ["aot.h"], "src/aot.h": []}),
    ("the runtime never includes the offline tools' library",
     {"collectives/a.c": ["aot_tools.h"], "tools/lib/aot_tools.h": []}),
    ("the runtime never includes the offline tools' library",
     {"src/a.c": ["aot_tools.h"], "tools/lib/aot_tools.h": []}),
    ("includes the umbrella aot.h", {"tools/lib/a.c": ["aot.h"], "src/aot.h": []}),
    ("a tool reaches the collectives through tools/lib/aot_tools.h",
     {"tools/tune/a.c": ["aot_tools.h", "coll_registry.h"], "tools/lib/aot_tools.h": [],
      "collectives/coll_registry.h": []}),
    ("a tool reaches the collectives through tools/lib/aot_tools.h",
     {"tools/bench-coll/a.c": ["coll_bytes.h"], "collectives/coll_bytes.h": []}),
    ("include cycle", {"paging/a.c": ["aot_x.h"], "src/aot_x.h": [], "src/b.c": ["p.h"],
                       "paging/p.h": []}),
    (None, {"chains/a.c": ["aot.h", "aot_paging.h", "aot_mech.h", "native_inline.h"],
            "src/aot.h": [], "paging/aot_paging.h": [],
            "mech/aot_mech.h": [], "mech/native_inline.h": ["aot_mech.h", "aot_log.h"],
            "collectives/b.c": ["aot_log.h"], "src/aot_log.h": [],
            "tools/lib/t.c": ["aot_tools.h", "aot_coll.h", "aot_log.h"],
            "tools/lib/aot_tools.h": [], "collectives/aot_coll.h": [],
            "tools/tune/a.c": ["aot_tools.h", "aot_tuning_file.h", "aot_config.h", "export.h"],
            "tools/tune/export.h": [], "collectives/aot_tuning_file.h": [],
            "src/aot_config.h": [], "tools/bench-coll/b.c": ["aot_tools.h", "gen_algs.h"]}),
]


def self_test():
    """Each rule fires on a tree that breaks it, and a tree that keeps them passes."""
    import tempfile
    failed = 0
    for want, files in SELF_TESTS:
        with tempfile.TemporaryDirectory() as root:
            for rel, incs in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.writelines('#include "%s"\n' % h for h in incs)
            problems = check(root, None)[0]
        ok = (not problems) if want is None else any(want in p for p in problems)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", want or "a tree within the rules",
                             "; ".join(problems) or "no problem"))
        failed += not ok
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   os.pardir))
    ap.add_argument("--generated", default=None)
    ap.add_argument("--self-test", action="store_true",
                    help="check that every rule fires on a tree made to break it")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    root = os.path.abspath(args.root)
    problems, edges, nfiles = check(root, args.generated)
    print("include graph: %d files; edges: %s" % (
        nfiles, ", ".join("%s->%s" % e for e in sorted(edges)) or "none"))
    for p in problems:
        print("FAIL " + p)
    if problems:
        print("%d problem(s); the rules are in tests/include_graph.py and docs/design.md" %
              len(problems))
        return 1
    print("include graph: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
