# outfile.py: the one writer of every file the Python tools write, with src/files.c's rule:
# a regular file or a new name is written whole (a temporary file beside it, renamed over it);
# a symbolic link of ours or root's is followed (its target gets the contents, the link stays
# a link); a device, FIFO, socket or directory is refused, and left as it is.  An existing file
# keeps its mode, and its owner and group where we may set them.  check() says the same
# without writing: tools call it on their output paths while they read their options.
# SPDX-License-Identifier: GPL-2.0-or-later

import contextlib
import os
import stat
import tempfile

MAX_LINKS = 40


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "of an unknown kind"


def _target(path):
    """(the name written, its lstat or None); raises ValueError("PATH: reason")."""
    cur, hops = path, 0
    while True:
        via = ", where its symbolic link leads," if hops else ""
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            d = os.path.dirname(cur) or "."
            if not os.path.isdir(d):
                where = " (where its symbolic link leads)" if hops else ""
                raise ValueError(f"{path}: the directory {d}{where} does not exist") from None
            return cur, None
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror}") from None
        if stat.S_ISREG(st.st_mode):
            return cur, st
        if not stat.S_ISLNK(st.st_mode):
            raise ValueError(f"{path}: refused: {cur if hops else 'it'}{via} is "
                             f"{_kind(st.st_mode)} (only a regular file, a new name or a "
                             "symbolic link to one is written)")
        if st.st_uid not in (os.geteuid(), 0):
            raise ValueError(f"{path}: refused: {cur if hops else 'it'} is a symbolic link of "
                             f"another user (uid {st.st_uid}), not followed")
        hops += 1
        if hops > MAX_LINKS:
            raise ValueError(f"{path}: refused: more than {MAX_LINKS} symbolic links in a row")
        cur = os.path.join(os.path.dirname(cur), os.readlink(cur))


def check(path):
    """None when path may be written, else the one-line reason "PATH: reason"."""
    try:
        _, st = _target(path)
    except ValueError as e:
        return str(e)
    if st is not None and st.st_uid != os.geteuid() and os.geteuid() != 0:
        return (f"{path}: refused: the file belongs to another user (uid {st.st_uid}); "
                "remove it or name another file")
    return None


@contextlib.contextmanager
def replacing(path, mode="w", newline=None):
    """with replacing(P) as f: f.write(...) -- P appears whole when the block ends, or not at
    all (the block raised).  Raises OSError with "PATH: reason" when P may not be written."""
    why = check(path)
    if why:
        raise OSError(why)
    target, st = _target(path)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(target) + ".",
                               dir=os.path.dirname(target) or ".")
    try:
        if st is not None:
            if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):
                    os.fchown(fd, st.st_uid, st.st_gid)
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, mode, newline=newline) as f:
            fd = -1
            yield f
        now = None
        with contextlib.suppress(FileNotFoundError):
            now = os.lstat(target)
        if now is not None and not stat.S_ISREG(now.st_mode):
            raise OSError(f"{path}: refused: {target} became {_kind(now.st_mode)} while it "
                          "was written")
        os.replace(tmp, target)
        tmp = None
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_text(path, text):
    """The whole of text into path (replacing's rule)."""
    with replacing(path) as f:
        f.write(text)
