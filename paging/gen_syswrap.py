#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_syswrap.py: writes paging/syswrap.c, the wrappers of every libc function named after a
Linux system call that takes a pointer (issue 55, item 4).

The rule: a libc function exported at a default version (nm -D), whose name is a system call's
(<asm/unistd_64.h> __NR_<name>, or <name>64), and whose prototype in glibc's headers (gcc
-aux-info over the headers listed below) has a pointer parameter (a '*' or a sockaddr
argument), gets a wrapper: while requests are pending it completes the ones whose bytes meet
what each pointer may reach and lifts the guards left there for the call (paging/syscalls.c,
aot_pg_args_before).  Left out, each with its reason, in EXCLUDED below.

A program built with _FORTIFY_SOURCE (Debian's dpkg-buildflags, Ubuntu's compiler default) calls
glibc's fortified entry points instead where the compiler knows the size of a buffer: __X_chk
(X's arguments and the buffer's object size, which glibc checks before calling X) or __X_2 (X
without its variadic argument: open, openat, mq_open).  Each such symbol libc exports at a
default version whose X gets a generated wrapper gets one too, from its prototype under
_FORTIFY_SOURCE: X's rule, X's reach (the object size is not a reach: glibc stops the call if
the size argument exceeds it); a fortified form of a function wrapped by hand (__read_chk ...)
must be wrapped by hand too (the script stops otherwise).

Run on the target system (Debian 12, glibc 2.36) after a glibc change; the output is checked in:
    python3 paging/gen_syswrap.py > paging/syswrap.c

For the test (tests/mpi/paging/syswrap_all.c, test paging.syswrap_all), the build runs
    python3 paging/gen_syswrap.py --stub STUB.c --calls CALLS.h
on the build machine: STUB.c defines every function of the same list in a library preloaded
after libautoopt.so (so autoopt's wrapper calls it), which forwards to libc unless the test
armed it for one call; then it checks, with raw system calls, that each pointer argument is
readable (writable where the kernel writes) over what the kernel reaches (KERNEL_REACH and the
rules in reach()), and keeps a copy of those bytes.  CALLS.h calls each function by name with
its pointer arguments in the test's buffers.  A list that differs from the checked-in
syswrap.c fails the test (a wrapper is missing): run the script again.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HEADERS = """unistd.h fcntl.h stdio.h grp.h sys/file.h sys/stat.h sys/statfs.h sys/statvfs.h
sys/socket.h sys/time.h sys/times.h sys/resource.h sys/mount.h sys/xattr.h sys/utsname.h
sys/sysinfo.h sys/wait.h sys/epoll.h poll.h sys/select.h sys/inotify.h sys/fanotify.h
sys/timerfd.h sys/signalfd.h sys/sendfile.h sys/swap.h sys/msg.h sys/sem.h sys/shm.h
sys/mman.h sys/uio.h sys/quota.h sys/timex.h sys/random.h sys/pidfd.h sys/acct.h utime.h
time.h sched.h signal.h dirent.h mqueue.h""".split()

EXCLUDED = {
    # wrapped by hand (paging/syscalls.c, paging/mapping.c): exact lengths, or mapping changes
    **{n: "syscalls.c" for n in """read write pread64 pwrite64 readv writev preadv preadv2
        preadv64 pwritev pwritev2 pwritev64 recvfrom sendto recvmsg sendmsg recvmmsg sendmmsg
        getrandom process_vm_readv process_vm_writev mmap mmap64 munmap mremap madvise
        mprotect pkey_mprotect shmat shmdt brk""".split()},
    "sigaltstack": "src/signals.c wraps it",
    # the vDSO answers these in user mode: a guard faults there like any access of the program
    **{n: "vDSO" for n in "clock_gettime gettimeofday time clock_getres getcpu".split()},
    "clone": "starts a thread or process on the caller's stack (threads.c's rule)",
}

# Waits whose signal mask holds while the call waits (argument index): a handler of a signal
# delivered then runs with that mask, so a mask that blocks SIGSEGV or SIGTRAP first has every
# guard completed (aot_fault_wait_mask, as sigsuspend in src/signals.c; pselect, not named
# after its system call pselect6, is wrapped there too).
WAIT_MASK = {"ppoll": 3, "epoll_pwait": 4, "epoll_pwait2": 4}

SIZE_TYPES = ("size_t", "socklen_t")
# Parameter types that are pointers under a typedef (quotactl's address).
POINTER_TYPEDEFS = ("__caddr_t", "caddr_t")

# What the kernel reaches through a pointer argument where it is not one object of the pointed
# type, nor a byte buffer of the call's size argument, nor a path (man pages): arrays counted in
# elements, a size in an int, a header before the bytes, a variable-length structure.  C
# expressions of the arguments a0, a1, ...; used by the wrappers too (at least
# AOT_PG_SPAN_MIN).
def _count(a):
    return "(%s > 0 ? (size_t) %s : 0)" % (a, a)


KERNEL_REACH = {
    "poll": {0: "a1 * sizeof(struct pollfd)"},
    "ppoll": {0: "a1 * sizeof(struct pollfd)"},
    "epoll_wait": {1: _count("a2") + " * sizeof(struct epoll_event)"},
    "epoll_pwait": {1: _count("a2") + " * sizeof(struct epoll_event)"},
    "epoll_pwait2": {1: _count("a2") + " * sizeof(struct epoll_event)"},
    "semop": {1: "a2 * sizeof(struct sembuf)"},
    "semtimedop": {1: "a2 * sizeof(struct sembuf)"},
    "setgroups": {1: "a0 * sizeof(__gid_t)"},
    "getgroups": {1: _count("a0") + " * sizeof(__gid_t)"},
    "process_madvise": {1: "a2 * sizeof(struct iovec)"},
    "vmsplice": {1: "a2 * sizeof(struct iovec)"},
    "msgsnd": {1: "sizeof(long) + a2"},
    "msgrcv": {1: "sizeof(long) + a2"},
    "fsconfig": {3: _count("a4")},
    "sched_getaffinity": {2: "a1"},
    "sched_setaffinity": {2: "a1"},
    "mount_setattr": {3: "a4"},
    "name_to_handle_at": {2: "sizeof(struct file_handle) + MAX_HANDLE_SZ"},
    "open_by_handle_at": {1: "sizeof(struct file_handle) + MAX_HANDLE_SZ"},
    "mincore": {2: "(a1 + 4095) / 4096"},
    # a name of the given length, not a path
    "sethostname": {0: "a1"},
    "setdomainname": {0: "a1"},
    "mq_timedsend": {1: "a2"},
}
# Addresses the kernel does not read or write through: it changes or queries the mapping there.
NOT_ACCESSED = {"mincore": 0, "msync": 0, "mlock": 0, "mlock2": 0, "munlock": 0,
                "remap_file_pages": 0}
# The test's value of an argument that sets a reach (CALLS.h); a size argument is 16384 (and
# other arguments 0) unless given here.
TEST_ARGS = {
    "poll": {1: "1024"}, "ppoll": {1: "1024"},
    "epoll_wait": {2: "1024"}, "epoll_pwait": {2: "1024"}, "epoll_pwait2": {2: "1024"},
    "semop": {2: "500"}, "semtimedop": {2: "500"},       # SEMOPM: the kernel takes no more
    "setgroups": {0: "4096"}, "getgroups": {0: "4096"},
    "process_madvise": {2: "1024"}, "vmsplice": {2: "1024"},
    "fsconfig": {4: "16384"},
}
TEST_SIZE = "16384"


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def prototypes(fortify=False):
    """name -> (return type, parameters) of glibc's headers (fortify: as _FORTIFY_SOURCE=2
    declares them, where the __X_chk and __X_2 prototypes are)."""
    with tempfile.TemporaryDirectory() as d:
        src = d + "/h.c"
        with open(src, "w") as f:
            f.write("#define _GNU_SOURCE\n" + "".join("#include <%s>\n" % h for h in HEADERS))
        flags = ["-O2", "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=2"] if fortify else ["-U_FORTIFY_SOURCE"]
        run(["gcc", *flags, "-aux-info", d + "/p.txt", "-fsyntax-only", src])
        text = open(d + "/p.txt").read()
    protos = {}
    for m in re.finditer(r"\*/ (?:extern )?(.*?)\b(\w+) \((.*)\);", text):
        protos.setdefault(m.group(2), (m.group(1).strip(), m.group(3)))
    return protos


def is_pointer(p):
    return "*" in p or "SOCKADDR_ARG" in p or p in POINTER_TYPEDEFS


class Fn:
    """One wrapped symbol.  ps, ptrs and the argument names a0, a1 ... are those of base, the
    function whose rules apply (KERNEL_REACH, NOT_ACCESSED, TEST_ARGS): the symbol itself, or
    the function a fortified form checks and calls.  params: the symbol's own parameters in its
    order, (type, name); a fortified form's object size is named objsz."""

    def __init__(self, name, base, ret, ps, variadic, params=None, proto=None):
        self.name, self.base, self.ret, self.ps, self.variadic = name, base, ret, ps, variadic
        self.ptrs = [i for i, p in enumerate(ps) if is_pointer(p)]
        self.params = params or [(p, "a%d" % i) for i, p in enumerate(ps)]
        self.proto = proto          # a fortified form's declaration (not declared without it)


def split_params(params):
    ps = [p.strip() for p in params.split(",")] if params.strip() not in ("", "void") else []
    variadic = bool(ps) and ps[-1] == "..."
    return (ps[:-1] if variadic else ps), variadic


def libc_exported():
    exported = set()
    for line in run(["nm", "-D", "--defined-only", "/lib/x86_64-linux-gnu/libc.so.6"]).splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TWi" and "@@GLIBC_2" in f[2]:
            exported.add(f[2].split("@@")[0])
    return exported


def hand_wrapped():
    """The functions paging/syscalls.c wraps by hand (its AOT_PG_WRAPPED list)."""
    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "syscalls.c")).read()
    block = re.search(r"#define AOT_PG_WRAPPED\(X\)(.*?)\n\n", text, re.S).group(1)
    return set(re.findall(r"X\((\w+)\)", block))


# The object size a fortified form takes (glibc declares it size_t or __SIZE_TYPE__).
OBJSIZE_TYPES = ("size_t", "long unsigned int")


def fortified(exported, wrapped):
    """The fortified forms of the generated wrappers' functions: __X_chk (X's parameters and one
    object size, the last size parameter whose removal leaves X's) and __X_2 (X's fixed
    parameters)."""
    protos = prototypes(fortify=True)
    by_name = {f.name: f for f in wrapped}
    hand = hand_wrapped()
    out = []
    for name in sorted(exported):
        m = re.match(r"^__(\w+)_(chk|2)$", name)
        if not m or (m.group(1) not in by_name and m.group(1) not in hand):
            continue
        if m.group(1) in hand:
            if name not in hand:
                sys.exit("gen_syswrap.py: %s is a fortified form of %s, which paging/syscalls.c "
                         "wraps by hand: wrap it there too" % (name, m.group(1)))
            continue
        b = by_name[m.group(1)]
        if name not in protos:
            sys.exit("gen_syswrap.py: no prototype of %s under _FORTIFY_SOURCE=2" % name)
        ret, params = protos[name]
        fps, variadic = split_params(params)
        index = None
        if m.group(2) == "2" and fps == b.ps and not variadic:
            index = list(range(len(fps)))
        for j in reversed(range(len(fps)) if m.group(2) == "chk" else []):
            if fps[j] in OBJSIZE_TYPES and fps[:j] + fps[j + 1:] == b.ps:
                index = [i if i < j else None if i == j else i - 1 for i in range(len(fps))]
                break
        if index is None:
            sys.exit("gen_syswrap.py: the parameters of %s (%s) are not those of %s (%s)"
                     % (name, params, b.name, ", ".join(b.ps)))
        out.append(Fn(name, b.name, ret, b.ps, False,
                      [(t, "objsz" if k is None else "a%d" % k) for t, k in zip(fps, index)],
                      "extern %s %s(%s);" % (ret, name, params)))
    return out


def collect():
    """The wrapped functions (Fn), then their fortified forms."""
    nrs = set(re.findall(r"__NR_(\w+)", open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h").read()))
    exported = libc_exported()
    protos = prototypes()
    names = sorted(n for n in exported if (n in nrs or (n.endswith("64") and n[:-2] in nrs))
                   and n in protos and n not in EXCLUDED)
    out = []
    for n in names:
        ret, params = protos[n]
        ps, variadic = split_params(params)
        f = Fn(n, n, ret, ps, variadic)
        if f.ptrs:
            out.append(f)
    return out + fortified(exported, out)


def declaration(f):
    decl = ", ".join(re.sub(r"^(.*?)(\[\])?$", lambda m: "%s %s" % (m.group(1), a), p) if "(" not in p
                     else p.replace("(*)", "(*%s)" % a) for p, a in f.params)
    return decl + (", ..." if f.variadic else "")


def call_args(f):
    return ", ".join(a for _, a in f.params) + (", v[0], v[1], v[2]" if f.variadic else "")


def pointer_value(ps, i):
    return "a%d.__sockaddr__" % i if "SOCKADDR_ARG" in ps[i] else "a%d" % i


def write_header(w, what, out, defines=()):
    nf = sum(1 for f in out if f.proto)
    w("/*\n * %s: GENERATED by paging/gen_syswrap.py (do not edit): every libc function named\n"
      " * after a system call that takes a pointer, %d of them, and the %d fortified forms of\n"
      " * those that glibc exports (rule and exclusions: the script).\n"
      " * SPDX-License-Identifier: GPL-2.0-or-later\n */\n" % (what, len(out) - nf, nf))
    w("".join("#ifndef %s\n#define %s\n#endif\n" % (d, d) for d in defines))
    w("#undef _FORTIFY_SOURCE\n#include <stdarg.h>\n")
    w("/* -aux-info gives array parameters (int fds[2]) as pointers */\n"
      "#pragma GCC diagnostic ignored \"-Warray-parameter\"\n")
    w("".join("#include <%s>\n" % h for h in HEADERS))
    w("\n/* The fortified forms, which glibc declares under _FORTIFY_SOURCE only */\n")
    w("".join("%s\n" % f.proto for f in out if f.proto))


def write_variadic(w, f):
    w("    long v[3];\n    va_list ap;\n    va_start(ap, %s);\n" % f.params[-1][1])
    w("    for (int k = 0; k < 3; k++)\n        v[k] = va_arg(ap, long);\n    va_end(ap);\n")


def write_wrappers(w, out):
    write_header(w, "syswrap.c", out)
    w('\n#include "aot_fault.h"\n#include "paging.h"\n\n')
    w("#define AOT_PG_SYSWRAP_LIST(X) \\\n")
    for f in out:
        w("    X(%s) \\\n" % f.name)
    w("\n\n")
    for f in out:
        n, ret, ps, ptrs = f.name, f.ret, f.ps, f.ptrs
        args = call_args(f)
        void = ret == "void"
        if f.proto:
            w("/* %s's fortified form: %s's rule%s */\n"
              % (f.base, f.base, " (the object size is not a reach)"
                 if any(a == "objsz" for _, a in f.params) else ", without the variadic argument"))
        w("%sAOT_PG_EXPORT %s %s(%s)\n{\n" % ("__attribute__((no_sanitize_address))\n" if f.variadic else "",
                                            ret, n, declaration(f)))
        w("    static __typeof__(%s) *real;\n" % n)
        w("    struct aot_pg_lift l[%d];\n" % len(ptrs))
        if f.variadic:
            write_variadic(w, f)
        if not void:
            w("    %s r;\n" % ret)
        w("    if (!real)\n        real = (__typeof__(%s) *) aot_pg_next(\"%s\");\n" % (n, n))
        if void:
            w("    if (AOT_PG_SYS_FAST) {\n        real(%s);\n        return;\n    }\n" % args)
        else:
            w("    if (AOT_PG_SYS_FAST)\n        return real(%s);\n" % args)
        if n in WAIT_MASK or f.base in WAIT_MASK:
            m = WAIT_MASK.get(n, WAIT_MASK.get(f.base))
            w("    if (a%d)\n        aot_fault_wait_mask(a%d);\n" % (m, m))
        span = "\n        ".join("if ((size_t) a%d > s)\n            s = (size_t) a%d;" % (i, i)
                                 for i, p in enumerate(ps) if p in SIZE_TYPES)
        w("    {\n        size_t s = AOT_PG_SPAN_MIN;\n")
        if span:
            w("        %s\n" % span)
        for k, i in enumerate(ptrs):
            span = "s"
            if i in KERNEL_REACH.get(f.base, {}):
                w("        size_t r%d = (size_t) (%s);\n" % (k, KERNEL_REACH[f.base][i]))
                span = "r%d > s ? r%d : s" % (k, k)
            w("        aot_pg_arg_before(&l[%d], (const void *) %s, %s, %d);\n"
              % (k, pointer_value(ps, i), span, 0 if "const" in ps[i] else 1))
        w("    }\n")
        w("    %sreal(%s);\n" % ("r = " if not void else "", args))
        w("    aot_pg_args_after(l, %d);\n" % len(ptrs))
        if not void:
            w("    return r;\n")
        w("}\n\n")


BYTE_TYPES = re.compile(r"^(const )?(void|char|unsigned char) \*$")


def reach(n, ps, i):
    """C expression: the bytes the kernel may reach through pointer argument i (the stub's model).
    A path reaches PATH_MAX bytes (the test's bytes hold no NUL); a byte buffer, the call's
    largest size argument; a socket address, its length argument or a sockaddr_storage; any
    other pointer, one object of its type."""
    if i == NOT_ACCESSED.get(n):
        return "0"
    if i in KERNEL_REACH.get(n, {}):
        return "(size_t) (%s)" % KERNEL_REACH[n][i]
    sizes = ["(size_t) a%d" % k for k, p in enumerate(ps) if p in SIZE_TYPES]
    largest = None
    if sizes:
        largest = sizes[0] if len(sizes) == 1 else "aot_sw_max(%d, %s)" % (len(sizes), ", ".join(sizes))
    p = ps[i]
    if "SOCKADDR_ARG" in p:
        lens = ["(size_t) a%d" % k for k, q in enumerate(ps) if q == "socklen_t"]
        return lens[0] if lens else "sizeof(struct sockaddr_storage)"
    if p == "const char *":
        return "(size_t) PATH_MAX"
    if BYTE_TYPES.match(p) or p in POINTER_TYPEDEFS:
        return largest or "(size_t) 4096"
    return "sizeof(*a%d)" % i


def write_stub(w, out):
    write_header(w, "syswrap_stub.c (tests only, never installed)", out,
                 ("_GNU_SOURCE", "AOT_SW_STUB"))
    w('#include <limits.h>\n#include <stddef.h>\n\n#include "syswrap_stub.h"\n\n')
    for k, f in enumerate(out):
        n, b, ret, ps, ptrs = f.name, f.base, f.ret, f.ps, f.ptrs
        args = call_args(f)
        w("%sAOT_SW_EXPORT %s %s(%s)\n{\n" % ("__attribute__((no_sanitize_address))\n" if f.variadic else "",
                                            ret, n, declaration(f)))
        w("    static __typeof__(%s) *real;\n" % n)
        w("    const void *p[%d] = { %s };\n" % (len(ptrs), ", ".join("(const void *) %s" % pointer_value(ps, i)
                                                                    for i in ptrs)))
        if f.variadic:
            write_variadic(w, f)
        w("    if (aot_sw_mine(%d, p, %d)) {\n" % (k, len(ptrs)))
        w("        const size_t n[%d] = { %s };\n" % (len(ptrs), ", ".join(reach(b, ps, i) for i in ptrs)))
        w("        static const int wr[%d] = { %s };\n"
          % (len(ptrs), ", ".join("0" if "const" in ps[i] or i == NOT_ACCESSED.get(b) else "1" for i in ptrs)))
        w("        aot_sw_check(p, n, wr, %d);\n" % len(ptrs))
        w("        return (%s) 0;\n    }\n" % ret)
        w("    if (!real)\n        real = (__typeof__(%s) *) aot_sw_next(\"%s\");\n" % (n, n))
        w("    return real(%s);\n}\n\n" % args)


def write_calls(w, out):
    write_header(w, "syswrap_calls.h", out, ("_GNU_SOURCE",))
    w("\n#define AOT_SW_N %d\n" % len(out))
    w("#define AOT_SW_MAXPTRS %d\n" % max(len(f.ptrs) for f in out))
    w("/* A fortified form's object size: what the test's buffer holds from its pointer on */\n"
      "#ifndef AOT_SW_OBJSIZE\n#define AOT_SW_OBJSIZE %s\n#endif\n" % TEST_SIZE)
    w("static const char *const aot_sw_names[AOT_SW_N] = {\n%s};\n"
      % "".join('    "%s",\n' % f.name for f in out))
    w("static const int aot_sw_nptrs[AOT_SW_N] = {\n%s};\n"
      % "".join("    %d, /* %s */\n" % (len(f.ptrs), f.name) for f in out))
    w("\n/* Calls function k by name, its i-th pointer argument p[i]; the other arguments 0, or\n"
      " * what sets a reach (gen_syswrap.py's TEST_ARGS, sizes %s). */\n" % TEST_SIZE)
    w("static volatile long aot_sw_sink;\n")
    w("static void aot_sw_call(int k, char *const *p)\n{\n    switch (k) {\n")
    for k, f in enumerate(out):
        a = []
        for p, name in f.params:
            if name == "objsz":
                a.append("(%s) AOT_SW_OBJSIZE" % p)
                continue
            i = int(name[1:])
            if i in f.ptrs:
                t = {"__SOCKADDR_ARG": "struct sockaddr *",
                     "__CONST_SOCKADDR_ARG": "const struct sockaddr *"}.get(p, p)
                a.append("(%s) p[%d]" % (t, f.ptrs.index(i)))
            else:
                a.append("(%s) %s" % (p, TEST_ARGS.get(f.base, {}).get(i, TEST_SIZE if p in SIZE_TYPES else "0")))
        w("    case %d:\n        aot_sw_sink = (long) %s(%s);\n        break;\n" % (k, f.name, ", ".join(a)))
    w("    default:\n        break;\n    }\n}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stub", help="write the test stub library's source here")
    ap.add_argument("--calls", help="write the test's call table here")
    opts = ap.parse_args()
    out = collect()
    if not opts.stub and not opts.calls:
        write_wrappers(sys.stdout.write, out)
    for path, writer in ((opts.stub, write_stub), (opts.calls, write_calls)):
        if path:
            with open(path, "w") as f:
                writer(f.write, out)


if __name__ == "__main__":
    main()
