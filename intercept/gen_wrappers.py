#!/usr/bin/env python3
# gen_wrappers.py: generate autoopt's PMPI wrappers from MPICH's mpi_proto.h and wrappers.spec.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: gen_wrappers.py MPI_PROTO_H WRAPPERS_SPEC OUTDIR
# writes OUTDIR/aot_functions.h   enum of wrapped functions (AOT_FN_MPI_Send, ...) and of the
#                                 classes wrappers.spec gives them (AOT_FC_ROUTE, ...)
#        OUTDIR/aot_route.h       prototypes of the hand-written aot_route_<fn> dispatchers
#        OUTDIR/aot_wrappers.c    the wrappers, the name and class tables, the call-site entry
#                                 points
#        OUTDIR/inject_mpi.h      the compile-time mpi.h that autoopt-mpicc puts first
#        OUTDIR/unwrapped.md      the functions left unwrapped, with the reason for each
import fnmatch
import os
import re
import sys
from string import Template

# Every wrapper has two paths.  The fast one is taken when the word aot_hooks_armed is 0 (autoopt
# is active, no subsystem has anything to do around a call, counts need no atomics) and the call
# is the program's own (depth 0): raise the re-entry guard, count the call, call MPI (a routed
# call: its router), lower the guard.  Anything else (autoopt inactive or not yet started, a
# nested call, hooks armed) takes the general path, a function of its own so that the fast one
# saves no more registers than the call to MPI needs.  The hooks cannot become armed during a
# pass-through call to MPI: only autoopt arms them, and a router may (a converted request), so
# a routed fast path still checks for the leave hook.
WRAPPER = Template("""\
static __attribute__((noinline)) int aot_general_${name}(${params})
{
    int aot_rc;
    if (!aot_active || aot_tls.depth != 0)
        return P${name}(${args});
    aot_tls.depth = 1;
    aot_count_call(AOT_FN_${name});
${gdoze}${fast}${enter}    aot_rc = ${call}(${args});
${leave}    aot_tls.depth = 0;
    return aot_rc;
}

int ${name}(${params})
{
    int aot_rc;
    if (__builtin_expect(((aot_hooks_armed${fastmask}) | aot_tls.depth) != 0, 0)) {
${caller}        return aot_general_${name}(${args});
    }
${doze}    aot_tls.depth = 1;
    aot_calls[AOT_FN_${name}]++;
${fastpath}${fastenter}    aot_rc = ${call}(${args});
${fastleave}    aot_tls.depth = 0;
    return aot_rc;
}

""")
FAST = Template("""\
    if (__builtin_expect(aot_fast_armed != 0, 0)) {
        aot_rc = aot_fast_${name}(${args});
        if (aot_rc != AOT_FAST_DECLINED) {
            aot_tls.depth = 0;
            return aot_rc;
        }
    }
""")
# A dozing chain's calls (src/aot_hooks.h, aot_doze_calls): counted, and timed on the general
# path when AUTOOPT_STATS times calls, and nothing else.
DOZE = Template("""\
    if (aot_doze_calls != 0) {
        aot_doze_calls--;
        aot_calls[AOT_FN_${name}]++;
        return P${name}(${args});
    }
""")
GDOZE = Template("""\
    if (aot_doze_calls != 0 && (aot_hooks_armed & ~(AOT_ARM_TIMING | AOT_ARM_FASTPASS)) == 0) {
        const int aot_timed = aot_hooks_armed & AOT_ARM_TIMING;
        aot_doze_calls--;
        if (aot_timed)
            aot_stats_time_enter();
        aot_rc = P${name}(${args});
        if (aot_timed)
            aot_stats_time_leave(AOT_FN_${name});
        aot_tls.depth = 0;
        return aot_rc;
    }
""")
HOOK_ENTER = "    if (__builtin_expect(aot_hooks_armed != 0, 0))\n        aot_enter_slow(AOT_FN_${name});\n"
HOOK_LEAVE = "    if (__builtin_expect(aot_hooks_armed != 0, 0))\n        aot_leave_slow(AOT_FN_${name});\n"

SITE = Template("""\
int autoopt_${name}(const char *aot_file, int aot_line, ${params})
{
    int aot_rc;
    const char *aot_saved_file = aot_tls.site_file;
    int aot_saved_line = aot_tls.site_line;
    aot_tls.site_file = aot_file;
    aot_tls.site_line = aot_line;
    aot_rc = ${name}(${args});
    aot_tls.site_file = aot_saved_file;
    aot_tls.site_line = aot_saved_line;
    return aot_rc;
}

""")


class Proto:
    def __init__(self, ret, name, params):
        self.ret, self.name, self.params = ret, name, params
        # The call-site entry points take "T x[]" as "T *x": GCC's array-parameter checks would
        # otherwise warn about MPI_STATUSES_IGNORE, a small integer cast to a pointer.
        self.ptr_params = re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\[\]", r"*\1", params)

    def param_names(self):
        names = []
        for p in split_params(self.params):
            if p.strip() in ("void", ""):
                continue
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\]\s*)*$", p.strip())
            if not m:
                sys.exit("gen_wrappers.py: cannot find the parameter name in '%s' of %s" % (p, self.name))
            names.append(m.group(1))
        return names


def split_params(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return out


def read_protos(path):
    text = open(path).read()
    # Only the MPI_ section: stop where the PMPI_ prototypes begin.
    protos, seen = [], set()
    for m in re.finditer(r"^([A-Za-z_][A-Za-z0-9_ \*]*?)\b(MPI_[A-Za-z0-9_]+)\s*\(([^;]*?)\)\s*(MPICH_[^;]*)?;",
                         text, re.M | re.S):
        ret, name, params = m.group(1).strip(), m.group(2), " ".join(m.group(3).split())
        if "typedef" in ret or ret.startswith("QMPI") or name in seen:
            continue
        seen.add(name)
        protos.append(Proto(ret, name, params))
    if len(protos) < 300:
        sys.exit("gen_wrappers.py: %s: found only %d MPI prototypes; is this MPICH's mpi_proto.h?"
                 % (path, len(protos)))
    return protos


# The classes of a wrapped function, each one bit of the generated table aot_function_classes
# (AOT_FC_<CLASS>), with what the bit means there.  The paging classes (convert, nobuf, reads)
# tell paging's enter hook what a call may do to the program's buffers; a wrapped function in
# none of them may write any.
CLASSES = {
    "local":   "wrapped and counted; no hooks run",
    "route":   "dispatched by aot_route_<fn> (intercept/route.c)",
    "custom":  "wrapped by hand (intercept/init.c)",
    "site":    "has an autoopt_<fn> call-site entry point",
    "fast":    "offered to aot_fast_<fn> first; the functions that can be chain members",
    "convert": "routed to the point-to-point subsystems, which know its buffers",
    "nobuf":   "reads or writes no buffer of the program",
    "reads":   "may read buffers of the program, writes none",
}
PAGING_CLASSES = ("convert", "nobuf", "reads")
assert len(CLASSES) <= 8, "aot_function_classes holds an unsigned char per function"


def read_spec(path):
    rules = []   # (class, pattern, reason, lineno)
    for lineno, line in enumerate(open(path), 1):
        body, _, reason = line.partition("#")
        words = body.split()
        if not words:
            continue
        cls = words[0]
        if cls not in CLASSES and cls != "skip":
            sys.exit("%s:%d: unknown class '%s' (expected skip, %s)"
                     % (path, lineno, cls, ", ".join(CLASSES)))
        if len(words) < 2:
            sys.exit("%s:%d: '%s' needs at least one function name" % (path, lineno, cls))
        if cls == "skip" and not reason.strip():
            sys.exit("%s:%d: a skipped function needs its reason after '#'" % (path, lineno))
        for w in words[1:]:
            rules.append((cls, w, reason.strip(), lineno))
    return rules


def classes_of(name, rules):
    return {(cls, reason) for cls, pat, reason, _ in rules if fnmatch.fnmatchcase(name, pat)}


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen_wrappers.py MPI_PROTO_H WRAPPERS_SPEC OUTDIR")
    proto_h, spec, outdir = sys.argv[1:]
    protos = read_protos(proto_h)
    rules = read_spec(spec)
    names = {p.name for p in protos}
    for cls, pat, _, lineno in rules:
        if not any(fnmatch.fnmatchcase(n, pat) for n in names):
            sys.exit("%s:%d: '%s' matches no function of %s" % (spec, lineno, pat, proto_h))

    wrapped, unwrapped, sites, routes, fasts = [], [], [], [], []
    for p in protos:
        cl = classes_of(p.name, rules)
        kinds = {c for c, _ in cl}
        if "skip" in kinds:
            if len(kinds) > 1:
                sys.exit("%s: %s is skipped and also in class %s" % (
                    spec, p.name, ", ".join(sorted(kinds - {"skip"}))))
            unwrapped.append((p.name, [r for c, r in cl if c == "skip"][0]))
            continue
        if p.ret != "int" or "..." in p.params:
            sys.exit("%s: %s returns '%s' or is variadic: add a skip rule with its reason"
                     % (spec, p.name, p.ret))
        if "convert" in kinds:
            kinds.add("route")
        wrapped.append((p, kinds))
        paging = [c for c in PAGING_CLASSES if c in kinds]
        if len(paging) > 1:
            sys.exit("%s: %s is in classes %s: one of them at most" % (spec, p.name,
                                                                         " and ".join(paging)))
        if paging and kinds & {"local", "custom"}:
            sys.exit("%s: %s: class %s needs the hooks: not with local or custom"
                     % (spec, p.name, paging[0]))
        if "site" in kinds:
            sites.append(p)
        if "route" in kinds:
            routes.append(p)
        if "fast" in kinds:
            if "route" not in kinds:
                sys.exit("%s: %s: a fast function must also be routed" % (spec, p.name))
            fasts.append(p)

    os.makedirs(outdir, exist_ok=True)
    gen = "/* Generated by intercept/gen_wrappers.py from %s and wrappers.spec: do not edit. */\n" \
        % os.path.basename(proto_h)

    with open(os.path.join(outdir, "aot_functions.h"), "w") as f:
        f.write(gen + "#ifndef AOT_FUNCTIONS_H_INCLUDED\n#define AOT_FUNCTIONS_H_INCLUDED\n")
        f.write("enum aot_function {\n")
        for p, _ in wrapped:
            f.write("    AOT_FN_%s,\n" % p.name)
        f.write("    AOT_FN_COUNT\n};\n\n")
        f.write("/* The classes wrappers.spec gives a wrapped function: aot_function_classes[AOT_FN_...]\n"
                " * (in aot_wrappers.c) holds one bit for each. */\nenum aot_function_class {\n")
        for bit, (cls, meaning) in enumerate(CLASSES.items()):
            f.write("    AOT_FC_%-8s = 1 << %d,   /* %s */\n" % (cls.upper(), bit, meaning))
        f.write("};\nextern const unsigned char aot_function_classes[AOT_FN_COUNT];\n#endif\n")

    with open(os.path.join(outdir, "aot_route.h"), "w") as f:
        f.write(gen + "#ifndef AOT_ROUTE_H_INCLUDED\n#define AOT_ROUTE_H_INCLUDED\n#include <mpi.h>\n")
        for p in routes:
            f.write("int aot_route_%s(%s);\n" % (p.name, p.params))
        for p in fasts:
            f.write("int aot_fast_%s(%s);\n" % (p.name, p.params))
        f.write("#endif\n")

    with open(os.path.join(outdir, "aot_wrappers.c"), "w") as f:
        f.write(gen + '#include "aot.h"\n#include "aot_route.h"\n\n')
        f.write("const char *const aot_function_names[AOT_FN_COUNT] = {\n")
        for p, _ in wrapped:
            f.write('    "%s",\n' % p.name)
        f.write("};\n\n")
        f.write("const unsigned char aot_function_classes[AOT_FN_COUNT] = {\n")
        for p, kinds in wrapped:
            bits = " | ".join("AOT_FC_" + c.upper() for c in CLASSES if c in kinds)
            f.write("    [AOT_FN_%s] = %s,\n" % (p.name, bits or "0"))
        f.write("};\n\n")
        f.write("/* The wrappers are the library's interface: export them (the rest is hidden). */\n"
                "#pragma GCC visibility push(default)\n\n")
        for p, kinds in wrapped:
            if "custom" in kinds:
                continue
            args = ", ".join(p.param_names())
            local = "local" in kinds
            routed = "route" in kinds
            caller = "aot_tls.caller = __builtin_return_address(0);\n" if routed else ""
            fast = FAST.substitute(name=p.name, args=args) if "fast" in kinds else ""
            leave = "" if local else Template(HOOK_LEAVE).substitute(name=p.name)
            sub = dict(name=p.name, params=p.params, args=args,
                       call=("aot_route_" + p.name) if routed else "P" + p.name,
                       # (a nested call leaves the caller of the call it is nested in)
                       caller=("        if (aot_tls.depth == 0)\n            " + caller)
                              if caller else "", fast=fast,
                       enter="" if local else Template(HOOK_ENTER).substitute(name=p.name),
                       leave=leave,
                       # the fast path: the caller (routed calls) is set before the fast
                       # offer, which reads it; the leave hook only where a router may arm
                       fastpath=("    " + caller + fast) if routed else "",
                       fastleave=leave if routed else "",
                       # a fast function's wrapper sees past AOT_ARM_FASTPASS: the subsystem
                       # behind aot_fast_<fn> checks that state itself, and a call it declines
                       # runs the enter hook here
                       fastmask=" & ~AOT_ARM_FASTPASS" if fast else "",
                       doze=DOZE.substitute(name=p.name, args=args) if fast else "",
                       gdoze=GDOZE.substitute(name=p.name, args=args) if fast else "",
                       fastenter=Template(HOOK_ENTER).substitute(name=p.name) if fast else "")
            f.write(WRAPPER.substitute(sub))
        for p in sites:
            f.write(SITE.substitute(name=p.name, params=p.ptr_params,
                                         args=", ".join(p.param_names())))
        f.write("#pragma GCC visibility pop\n")

    with open(os.path.join(outdir, "inject_mpi.h"), "w") as f:
        f.write(gen)
        f.write("/* autoopt's compile-time mpi.h: autoopt-mpicc puts it in front of MPICH's.  It includes\n"
                " * the real header and redirects point-to-point and collective calls to autoopt entry\n"
                " * points that also receive the call site.  The macros are function-like, so code that\n"
                " * takes the address of an MPI function (f = MPI_Send) still compiles and gets the\n"
                " * ordinary entry point.  Define AUTOOPT_NO_CALL_SITES to turn the redirection off. */\n")
        f.write("#ifndef AUTOOPT_MPI_H_INCLUDED\n#define AUTOOPT_MPI_H_INCLUDED\n")
        f.write("#include_next <mpi.h>\n#define AUTOOPT_INJECTED 1\n")
        f.write("#ifndef AUTOOPT_NO_CALL_SITES\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
        for p in sites:
            f.write("int autoopt_%s(const char *aot_file, int aot_line, %s);\n"
                    % (p.name, p.ptr_params))
        f.write("#ifdef __cplusplus\n}\n#endif\n")
        for p in sites:
            f.write("#define %s(...) autoopt_%s(__FILE__, __LINE__, __VA_ARGS__)\n" % (p.name, p.name))
        f.write("#endif /* AUTOOPT_NO_CALL_SITES */\n#endif /* AUTOOPT_MPI_H_INCLUDED */\n")

    others = other_functions(proto_h, names)
    with open(os.path.join(outdir, "unwrapped.md"), "w") as f:
        f.write("# MPI functions autoopt leaves unwrapped\n\nGenerated from `intercept/wrappers.spec` "
                "(%d wrapped, %d unwrapped). None of these can make progress on a request or touch "
                "a buffer autoopt may guard, so calling them straight into MPI is safe.\n\n"
                "| function | reason |\n|---|---|\n" % (len(wrapped), len(unwrapped)))
        for n, r in unwrapped:
            f.write("| `%s` | %s |\n" % (n, r))
        f.write("\n## Outside `mpi_proto.h`\n\nThe MPICH extensions (`MPIX_`) and MPI-IO "
                "(ROMIO's `mpio.h`) are not generated from `mpi_proto.h` and are not wrapped (%d "
                "functions). Any of them that waits makes progress on autoopt's requests as every "
                "MPI call does; ROMIO reads and writes the program's buffers either from user code "
                "(a touch of a guard waits for its requests, as the program's own would) or through "
                "the C library's `read`/`write`/`pread`/`pwrite` family, which autoopt wraps "
                "([paging.md](paging.md)). `tests/unwrapped_check.sh` checks that every `MPI_`/"
                "`MPIX_` function libmpich exports is wrapped or listed here.\n\n"
                "| function | reason |\n|---|---|\n" % len(others))
        for n, r in others:
            f.write("| `%s` | %s |\n" % (n, r))


# The MPI entry points of the headers beside mpi_proto.h that it does not declare (MPIX_
# extensions, MPI-IO), each with the reason it goes straight to MPI.
def other_functions(proto_h, known):
    folder = os.path.dirname(proto_h)
    found = {}
    for header, pattern in (("mpi_proto.h", r"\b(MPIX_[A-Za-z0-9_]+)\s*\("),
                            ("mpio.h", r"\b(MPI_[A-Za-z0-9_]+)\s*\(")):
        path = os.path.join(folder, header)
        if not os.path.exists(path):
            continue
        for m in re.finditer(r"^\s*(?:int|MPI_[A-Za-z]+)\s+" + pattern, open(path).read(), re.M):
            name = m.group(1)
            if name in known or name in found:
                continue
            if name.startswith("MPIX_"):
                found[name] = "MPICH extension (fault tolerance, generalized request classes, " \
                              "GPU queries, error classes): no buffer autoopt may guard"
            elif name.startswith("MPI_Register_datarep"):
                found[name] = "MPI-IO data representation: no buffer"
            else:
                found[name] = "MPI-IO (ROMIO): its buffer accesses are the program's own or " \
                              "go through the wrapped C library"
    return sorted(found.items())


if __name__ == "__main__":
    main()
