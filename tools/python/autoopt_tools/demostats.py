# demostats.py: the statistics of autoopt-demo: is a mode's time different from native's, and
# by how much, from interleaved repetitions on a noisy machine.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The demo runs native, then the other modes, in rounds (A B C, C B A, ...), so that round i's
# runs saw the same state of the machine.  Its times are paired by round: d_i = ln(t_i / n_i),
# where n_i is native's time in round i.  The estimate is exp(mean d), its 95 % interval
# exp(mean d +- t(0.975, k-1) s / sqrt(k)) (Student's t on the log-ratios: a ratio's logarithm
# is symmetric where the ratio is not, and a paired difference removes the drift the rounds
# share).  The interval is precise enough when it is within +-TARGET % of the estimate
# (half-width of the log interval <= ln(1 + TARGET/100)); an interval that contains 1.0 is "no
# measurable difference", never a number.
#
# Used by the demo as a program:
#   python3 -m autoopt_tools.demostats check --target PCT NATIVE OTHER [OTHER...]
#       exit 0 when every OTHER's interval against NATIVE is precise enough, else 1
#   python3 -m autoopt_tools.demostats report [--target PCT] LABEL NATIVE OTHER
#       prints one line: the estimate with its interval, or "no measurable difference"
# where each series is the times of the rounds, comma-separated, in round order.

import math
import statistics
import sys

# Student's t, 0.975 quantile, for 1-30 degrees of freedom.
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
         2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
         2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
         2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272)
_Z975 = 1.959964


def t975(df):
    """Student's t 0.975 quantile for df >= 1 degrees of freedom (the table to 30, then the
    Cornish-Fisher expansion around the normal quantile, within 1e-4 of the exact value)."""
    if df < 1:
        raise ValueError("t975: df must be >= 1, got %r" % (df,))
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2))


class Ratio:
    """other / native over paired rounds: estimate, lo, hi (95 %), rounds, and half, the
    half-width of the interval of the log-ratio."""

    def __init__(self, native, other):
        if len(native) != len(other):
            raise ValueError("ratio: %d native times, %d others: the rounds must pair"
                             % (len(native), len(other)))
        if len(native) < 2:
            raise ValueError("ratio: %d rounds: an interval needs at least 2" % len(native))
        if min(native) <= 0 or min(other) <= 0:
            raise ValueError("ratio: times must be positive")
        logs = [math.log(o / n) for n, o in zip(native, other)]
        self.rounds = len(logs)
        mean = statistics.fmean(logs)
        self.half = t975(self.rounds - 1) * statistics.stdev(logs) / math.sqrt(self.rounds)
        self.estimate = math.exp(mean)
        self.lo = math.exp(mean - self.half)
        self.hi = math.exp(mean + self.half)

    def precise(self, target_pct):
        """The interval is within +-target_pct % of the estimate."""
        return self.half <= math.log1p(target_pct / 100.0)

    def measurable(self):
        """The interval leaves 1.0 out."""
        return self.hi < 1.0 or self.lo > 1.0

    def text(self, target_pct=None):
        """One line for a person: the estimate and its interval, or no measurable difference;
        with target_pct, says when the interval is wider than that."""
        interval = "95 %% interval %.3f-%.3f, %d rounds" % (self.lo, self.hi, self.rounds)
        if not self.measurable():
            line = "no measurable difference (%s)" % interval
        elif self.estimate < 1.0:
            line = "%.3f x native's time (%s): %.1f %% less time" % (
                self.estimate, interval, 100.0 * (1.0 - self.estimate))
        else:
            line = "%.3f x native's time (%s): %.1f %% more time" % (
                self.estimate, interval, 100.0 * (self.estimate - 1.0))
        if target_pct is not None and not self.precise(target_pct):
            line += ", wider than +-%g %%" % target_pct
        return line


def parse_series(text, what):
    """"1.5,2,3" -> [1.5, 2.0, 3.0]; ValueError naming what and the value otherwise."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise ValueError("%s %r: expected comma-separated numbers" % (what, text)) from None
    if not values or not all(math.isfinite(v) and v > 0 for v in values):
        raise ValueError("%s %r: expected positive numbers" % (what, text))
    return values


def _target(args):
    if len(args) >= 2 and args[0] == "--target":
        try:
            pct = float(args[1])
        except ValueError:
            pct = -1.0
        if not pct > 0:
            raise ValueError("--target %r: expected a positive percentage" % args[1])
        return pct, args[2:]
    return None, args


def main(argv):
    usage = ("usage: demostats check --target PCT NATIVE OTHER [OTHER...]\n"
             "       demostats report [--target PCT] LABEL NATIVE OTHER")
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(usage)
        return 0 if len(argv) >= 2 else 2
    try:
        what, (target, args) = argv[1], _target(argv[2:])
        if what == "check" and target is not None and len(args) >= 2:
            native = parse_series(args[0], "NATIVE")
            ratios = [Ratio(native, parse_series(a, "OTHER")) for a in args[1:]]
            return 0 if all(r.precise(target) for r in ratios) else 1
        if what == "report" and len(args) == 3:
            r = Ratio(parse_series(args[1], "NATIVE"), parse_series(args[2], "OTHER"))
            print("%s %s" % (args[0], r.text(target)))
            return 0
    except ValueError as e:
        print("demostats: %s" % e, file=sys.stderr)
        return 2
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
