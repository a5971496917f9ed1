# demostats_test.py: autoopt-demo's statistics (tools/python/autoopt_tools/demostats.py)
# against answers worked out by hand: series built so that their log-ratios have a known mean
# and standard deviation, one whose interval leaves 1.0 out (a number), one that contains it
# ("no measurable difference"), the +-3 % precision test on both sides, Student's t, and the
# command line the demo calls (check's exit status, report's line, bad input).
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: python3 demostats_test.py PACKAGE-DIR   (the folder holding autoopt_tools)
import contextlib
import io
import math
import sys

sys.path.insert(0, sys.argv[1])
from autoopt_tools import demostats  # noqa: E402

failures = []


def expect(what, got, want, tol=5e-4):
    ok = abs(got - want) <= tol if isinstance(want, float) else got == want
    if not ok:
        failures.append("%s: got %r, expected %r" % (what, got, want))


def series(ratio, spread, native=(200.0, 210.0, 190.0)):
    """native times and others whose log-ratios are ln(ratio) + (spread, 0, -spread): mean
    ln(ratio), standard deviation spread."""
    other = [n * ratio * math.exp(d) for n, d in zip(native, (spread, 0.0, -spread))]
    return list(native), other


# Student's t: tabled (df <= 30) and the expansion beyond.
expect("t975(2)", demostats.t975(2), 4.302653)
expect("t975(10)", demostats.t975(10), 2.228139)
expect("t975(40)", demostats.t975(40), 2.021075)
expect("t975(120)", demostats.t975(120), 1.979930)

# A number: 0.9 with spread 0.01 over 3 rounds.  half = 4.302653 * 0.01 / sqrt(3) = 0.024841;
# interval 0.9 exp(-+0.024841) = 0.877918-0.922637, within +-3 % (ln 1.03 = 0.029559).
r = demostats.Ratio(*series(0.9, 0.01))
expect("0.9: estimate", r.estimate, 0.9, 1e-9)
expect("0.9: lo", r.lo, 0.877918)
expect("0.9: hi", r.hi, 0.922637)
expect("0.9: precise to 3 %", r.precise(3), True)
expect("0.9: precise to 2 %", r.precise(2), False)
expect("0.9: measurable", r.measurable(), True)
expect("0.9: text", r.text(3),
       "0.900 x native's time (95 % interval 0.878-0.923, 3 rounds): 10.0 % less time")
r = demostats.Ratio(*series(1.1, 0.01))
expect("1.1: text", r.text(3),
       "1.100 x native's time (95 % interval 1.073-1.128, 3 rounds): 10.0 % more time")

# No measurable difference: 1.01 with spread 0.02: half = 0.049683, interval 0.961-1.062
# contains 1.0 and is wider than +-3 %.
r = demostats.Ratio(*series(1.01, 0.02))
expect("1.01: lo", r.lo, 0.961046)
expect("1.01: hi", r.hi, 1.061448)
expect("1.01: measurable", r.measurable(), False)
expect("1.01: precise", r.precise(3), False)
expect("1.01: text", r.text(3), "no measurable difference (95 % interval 0.961-1.061, "
       "3 rounds), wider than +-3 %")
# ... and within +-3 % yet containing 1.0: 1.005, spread 0.005 (half 0.012420)
r = demostats.Ratio(*series(1.005, 0.005))
expect("1.005: text", r.text(3), "no measurable difference (95 % interval 0.993-1.018, "
       "3 rounds)")
# every round the same ratio: an interval of width 0
r = demostats.Ratio([100.0, 120.0], [95.0, 114.0])
expect("constant: lo", r.lo, 0.95, 1e-9)
expect("constant: text", r.text(3),
       "0.950 x native's time (95 % interval 0.950-0.950, 2 rounds): 5.0 % less time")

# Bad input.
for bad in (([1.0], [1.0]), ([1.0, 2.0], [1.0]), ([1.0, 0.0], [1.0, 1.0])):
    try:
        demostats.Ratio(*bad)
        failures.append("Ratio%r: accepted" % (bad,))
    except ValueError:
        pass


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = demostats.main(["demostats"] + list(args))
    return rc, out.getvalue(), err.getvalue()


def joined(values):
    return ",".join(repr(v) for v in values)


nat, fast = series(0.9, 0.01)
_, noisy = series(1.01, 0.02)
expect("check precise", cli("check", "--target", "3", joined(nat), joined(fast))[0], 0)
expect("check one not precise",
       cli("check", "--target", "3", joined(nat), joined(fast), joined(noisy))[0], 1)
expect("report", cli("report", "--target", "3", "  first", joined(nat), joined(noisy))[1],
       "  first no measurable difference (95 % interval 0.961-1.061, 3 rounds), "
       "wider than +-3 %\n")
rc, _, err = cli("check", "--target", "3", "1,2,x", "1,2,3")
expect("bad series: status", rc, 2)
expect("bad series: message", err, "demostats: NATIVE '1,2,x': expected comma-separated "
       "numbers\n")
expect("bad target", cli("check", "--target", "-1", "1,2", "1,2")[0], 2)
expect("unpaired", cli("report", "x", "1,2,3", "1,2")[0], 2)

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("ok: demostats answers as worked out by hand")
