#!/usr/bin/python3
# summarize.py: the "which algorithm wins where" tables of docs/collectives.md from the output
# of autoopt-bench-coll; the code is autoopt_tools.coll_summary (tools/python).
# SPDX-License-Identifier: GPL-2.0-or-later
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
from autoopt_tools import coll_summary  # noqa: E402

sys.exit(coll_summary.run(sys.argv))
