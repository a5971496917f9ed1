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
        mprotect shmdt brk""".split()},
    "sigaltstack": "src/signals.c wraps it",
    # the vDSO answers these in user mode: a guard faults there like any access of the program
    **{n: "vDSO" for n in "clock_gettime gettimeofday time clock_getres getcpu".split()},
    "clone": "starts a thread or process on the caller's stack (threads.c's rule)",
}

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
                "pkey_mprotect": 0, "remap_file_pages": 0, "shmat": 1}
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


def prototypes():
    with tempfile.TemporaryDirectory() as d:
        src = d + "/h.c"
        with open(src, "w") as f:
            f.write("#define _GNU_SOURCE\n" + "".join("#include <%s>\n" % h for h in HEADERS))
        run(["gcc", "-aux-info", d + "/p.txt", "-fsyntax-only", src])
        text = open(d + "/p.txt").read()
    protos = {}
    for m in re.finditer(r"\*/ (?:extern )?(.*?)\b(\w+) \((.*)\);", text):
        protos.setdefault(m.group(2), (m.group(1).strip(), m.group(3)))
    return protos


def is_pointer(p):
    return "*" in p or "SOCKADDR_ARG" in p or p in POINTER_TYPEDEFS


def collect():
    """The wrapped functions: (name, return type, parameter types, variadic, pointer indexes)."""
    nrs = set(re.findall(r"__NR_(\w+)", open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h").read()))
    exported = set()
    for line in run(["nm", "-D", "--defined-only", "/lib/x86_64-linux-gnu/libc.so.6"]).splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TWi" and "@@GLIBC_2" in f[2]:
            exported.add(f[2].split("@@")[0])
    protos = prototypes()
    names = sorted(n for n in exported if (n in nrs or (n.endswith("64") and n[:-2] in nrs))
                   and n in protos and n not in EXCLUDED)
    out = []
    for n in names:
        ret, params = protos[n]
        ps = [p.strip() for p in params.split(",")] if params.strip() not in ("", "void") else []
        variadic = bool(ps) and ps[-1] == "..."
        if variadic:
            ps = ps[:-1]
        ptrs = [i for i, p in enumerate(ps) if is_pointer(p)]
        if ptrs:
            out.append((n, ret, ps, variadic, ptrs))
    return out


def declaration(ps, variadic):
    decl = ", ".join(re.sub(r"^(.*?)(\[\])?$", lambda m: "%s a%d" % (m.group(1), i), p) if "(" not in p
                     else p.replace("(*)", "(*a%d)" % i) for i, p in enumerate(ps))
    return decl + (", ..." if variadic else "")


def call_args(ps, variadic):
    return ", ".join("a%d" % i for i in range(len(ps))) + (", v[0], v[1], v[2]" if variadic else "")


def pointer_value(ps, i):
    return "a%d.__sockaddr__" % i if "SOCKADDR_ARG" in ps[i] else "a%d" % i


def write_header(w, what, out, defines=()):
    w("/*\n * %s: GENERATED by paging/gen_syswrap.py (do not edit): every libc function named\n"
      " * after a system call that takes a pointer, %d of them (rule and exclusions: the script).\n"
      " * SPDX-License-Identifier: GPL-2.0-or-later\n */\n" % (what, len(out)))
    w("".join("#ifndef %s\n#define %s\n#endif\n" % (d, d) for d in defines))
    w("#undef _FORTIFY_SOURCE\n#include <stdarg.h>\n")
    w("/* -aux-info gives array parameters (int fds[2]) as pointers */\n"
      "#pragma GCC diagnostic ignored \"-Warray-parameter\"\n")
    w("".join("#include <%s>\n" % h for h in HEADERS))


def write_variadic(w, ps):
    w("    long v[3];\n    va_list ap;\n    va_start(ap, a%d);\n" % (len(ps) - 1))
    w("    for (int k = 0; k < 3; k++)\n        v[k] = va_arg(ap, long);\n    va_end(ap);\n")


def write_wrappers(w, out):
    write_header(w, "syswrap.c", out)
    w('\n#include "paging.h"\n\n')
    w("#define AOT_PG_SYSWRAP_LIST(X) \\\n")
    for n, *_ in out:
        w("    X(%s) \\\n" % n)
    w("\n\n")
    for n, ret, ps, variadic, ptrs in out:
        args = call_args(ps, variadic)
        void = ret == "void"
        w("%sAOT_PG_EXPORT %s %s(%s)\n{\n" % ("__attribute__((no_sanitize_address))\n" if variadic else "",
                                            ret, n, declaration(ps, variadic)))
        w("    static __typeof__(%s) *real;\n" % n)
        w("    struct aot_pg_lift l[%d];\n" % len(ptrs))
        if variadic:
            write_variadic(w, ps)
        if not void:
            w("    %s r;\n" % ret)
        w("    if (!real)\n        real = (__typeof__(%s) *) aot_pg_next(\"%s\");\n" % (n, n))
        if void:
            w("    if (AOT_PG_SYS_FAST) {\n        real(%s);\n        return;\n    }\n" % args)
        else:
            w("    if (AOT_PG_SYS_FAST)\n        return real(%s);\n" % args)
        span = "\n        ".join("if ((size_t) a%d > s)\n            s = (size_t) a%d;" % (i, i)
                                 for i, p in enumerate(ps) if p in SIZE_TYPES)
        w("    {\n        size_t s = AOT_PG_SPAN_MIN;\n")
        if span:
            w("        %s\n" % span)
        for k, i in enumerate(ptrs):
            span = "s"
            if i in KERNEL_REACH.get(n, {}):
                w("        size_t r%d = (size_t) (%s);\n" % (k, KERNEL_REACH[n][i]))
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
    for k, (n, ret, ps, variadic, ptrs) in enumerate(out):
        args = call_args(ps, variadic)
        w("%sAOT_SW_EXPORT %s %s(%s)\n{\n" % ("__attribute__((no_sanitize_address))\n" if variadic else "",
                                            ret, n, declaration(ps, variadic)))
        w("    static __typeof__(%s) *real;\n" % n)
        w("    const void *p[%d] = { %s };\n" % (len(ptrs), ", ".join("(const void *) %s" % pointer_value(ps, i)
                                                                    for i in ptrs)))
        if variadic:
            write_variadic(w, ps)
        w("    if (aot_sw_mine(%d, p, %d)) {\n" % (k, len(ptrs)))
        w("        const size_t n[%d] = { %s };\n" % (len(ptrs), ", ".join(reach(n, ps, i) for i in ptrs)))
        w("        static const int wr[%d] = { %s };\n"
          % (len(ptrs), ", ".join("0" if "const" in ps[i] or i == NOT_ACCESSED.get(n) else "1" for i in ptrs)))
        w("        aot_sw_check(p, n, wr, %d);\n" % len(ptrs))
        w("        return (%s) 0;\n    }\n" % ret)
        w("    if (!real)\n        real = (__typeof__(%s) *) aot_sw_next(\"%s\");\n" % (n, n))
        w("    return real(%s);\n}\n\n" % args)


def write_calls(w, out):
    write_header(w, "syswrap_calls.h", out, ("_GNU_SOURCE",))
    w("\n#define AOT_SW_N %d\n" % len(out))
    w("#define AOT_SW_MAXPTRS %d\n" % max(len(e[4]) for e in out))
    w("static const char *const aot_sw_names[AOT_SW_N] = {\n%s};\n"
      % "".join('    "%s",\n' % e[0] for e in out))
    w("static const int aot_sw_nptrs[AOT_SW_N] = {\n%s};\n"
      % "".join("    %d, /* %s */\n" % (len(e[4]), e[0]) for e in out))
    w("\n/* Calls function k by name, its i-th pointer argument p[i]; the other arguments 0, or\n"
      " * what sets a reach (gen_syswrap.py's TEST_ARGS, sizes %s). */\n" % TEST_SIZE)
    w("static volatile long aot_sw_sink;\n")
    w("static void aot_sw_call(int k, char *const *p)\n{\n    switch (k) {\n")
    for k, (n, ret, ps, variadic, ptrs) in enumerate(out):
        a = []
        for i, p in enumerate(ps):
            if i in ptrs:
                t = {"__SOCKADDR_ARG": "struct sockaddr *",
                     "__CONST_SOCKADDR_ARG": "const struct sockaddr *"}.get(p, p)
                a.append("(%s) p[%d]" % (t, ptrs.index(i)))
            else:
                a.append("(%s) %s" % (p, TEST_ARGS.get(n, {}).get(i, TEST_SIZE if p in SIZE_TYPES else "0")))
        w("    case %d:\n        aot_sw_sink = (long) %s(%s);\n        break;\n" % (k, n, ", ".join(a)))
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
