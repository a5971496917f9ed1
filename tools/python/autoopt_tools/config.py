# config.py: where autoopt's parts are, for the tools: the values CMake wrote into _paths.py,
# the environment and the tools' options, in one order of precedence.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CMake writes _paths.py twice (cmake/AotPythonTools.cmake): into the build tree, naming the
# libraries and programs of that build, and for the installation, naming where
# `cmake --install` puts them.  The package run from the source tree has no _paths.py: every
# value is then "" (unset), and the tools ask for --build, --lib and the like.

import os
import shutil
import sys

try:
    from . import _paths as _PATHS
except ImportError:
    _PATHS = None

# The names _paths.py may define, each a string ("" when unknown).
NAMES = ("VERSION", "AUTOOPT_LIB", "YIELD_LIB", "TCPCLOSE_LIB", "PINGPONG", "EXAMPLES_DIR",
         "MPIEXEC", "COLL_ALGORITHMS")


def configured(name, paths=None):
    """The value CMake wrote for name, or "" when the package is not configured or left it
    empty.  paths: the module (or any object) to read instead of _paths (tests)."""
    if name not in NAMES:
        raise KeyError(name)
    source = _PATHS if paths is None else paths
    value = getattr(source, name, "") if source is not None else ""
    return value if isinstance(value, str) else ""


def lookup(name, option=None, env=None, build=None, in_build="", paths=None):
    """A part of autoopt: the option's value when given, else the environment variable env
    when set, else build/in_build when a build directory was given (the configured value is
    then not used), else the configured value of name; "" when none applies."""
    if option:
        return option
    if env and os.environ.get(env):
        return os.environ[env]
    if build:
        return os.path.join(build, in_build)
    return configured(name, paths)


def mpiexec(paths=None):
    """The MPICH launcher's name: $AUTOOPT_MPIEXEC, else the configured one, else
    mpiexec.mpich (not searched on PATH: see mpiexec_path)."""
    return os.environ.get("AUTOOPT_MPIEXEC") or configured("MPIEXEC", paths) or "mpiexec.mpich"


def mpiexec_path(paths=None):
    """mpiexec() as a path when it is on PATH, else as it is."""
    name = mpiexec(paths)
    return shutil.which(name) or name


def tool_dir():
    """The folder of the program that is running (bin/ for bin/autoopt-bench), where the
    tools look for each other."""
    return os.path.dirname(os.path.abspath(sys.argv[0]))


def cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except OSError:
        return os.cpu_count() or 1
