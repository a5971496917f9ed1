# autoopt_tools: the Python tools of autoopt, one module per program (bench, netcluster,
# validate, maps, trace, coll_summary) and the parts they share (config, cli, benchcoll).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The programs users run (bin/autoopt-bench, ...) are thin scripts that put this package on
# sys.path and call the module's run(sys.argv); CMake writes them and the package's _paths.py
# (cmake/AotPythonTools.cmake).  Python 3 standard library only, apart from matplotlib for the
# pictures of bench and maps.
