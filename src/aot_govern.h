/*
 * aot_govern.h: the benefit governor -- whether an optimization of one chain or call site pays
 * in the program's own loop, decided from the measured period between its occurrences.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure (govern.c, govern_vote.c, govern_query.c): no MPI, no system calls, no clock, no
 * allocation; the caller times the periods and feeds them.  One struct aot_gov per site, embedded by the caller.  Running a site
 * natively or converted never changes which message matches which receive, so verdicts need
 * not agree for correctness; for the benefit they do, and with params.agree the ranks take
 * each verdict together (see "Agreed verdicts" below).
 *
 * Aligned.  What a mode buys can depend on the neighbours' modes (a
 * halo exchange overlaps only when the ranks on both sides of a message convert), so the
 * schedule is a function of the occurrence count alone: every window is a slot of warmup + win
 * occurrences; a window cut short, or a candidate passed over (its prior, the budget), leaves
 * the rest of its slot (and the native slot after a passed-over one) to native filler;
 * interruptions (aot_gov_skip) take their place in the slot unscored; re-checks are counted in
 * occurrences, those passed over at an exploration's end included.  Ranks that run the same loop and confirm a chain at the same occurrence thus
 * try the same mode at the same time while their verdicts agree.
 *
 * The algorithm (docs/govern.md).  Mode 0 is native, modes 1.. are candidates.  An
 * exploration runs windows in turns, native between every two candidate windows
 * (N C1 N C2 N ...); the first `warmup` periods of a window after a switch are not scored, the
 * next `window` are.  A candidate window is scored against the native windows on both sides of
 * it (their mean cancels a linear drift): its ratio is the interquartile mean of its periods
 * over the mean of the two native ones (a window's level: the mean of its faster half, as
 * interruptions only add time), with a standard error from the spreads (median absolute
 * deviations) of all three windows.  A candidate wins when ratio + 2 SE < 1 - margin, loses when
 * ratio - 2 SE > 1 - margin; in between it gets another window, at most AOT_GOV_MAX_TRIES, and
 * then loses as "not clearly faster".  The winner with the lowest ratio runs the site; without
 * one the site runs natively.  At a scheduled re-check (params.keep) the decided mode needs no
 * clear win again: it stays while its ratio is below 1 and it did not clearly lose (ratio - 2 SE
 * > 1 - margin), so that noise alone does not drop a winner at one re-check in two; the budget
 * neither passes it over nor cuts it (it runs anyway).  Re-explorations follow after
 * recheck_after, 2x, 4x, ... periods (at most max_rechecks), with windows doubled each time
 * (up to AOT_GOV_MAX_WINDOW) so a mode that is faster only after a warm-up is found later; a
 * decided mode whose periods rise to native's measured level triggers a re-exploration at once.
 * Cost: the extra time of candidate periods over native's lowest window level of the
 * exploration counts as exploration loss.
 * It may not exceed budget x (time governed so far) + allowance x (native period): a window
 * is cut short once it would (and a candidate whose first scored period is far above native's
 * spread is cut at once), and a candidate starts only if the budget left covers the worst
 * typical period of its latest window (for one never tried: the allowance and twice the worst
 * mode's), or its prior.  The loss of a
 * whole run is thus at most budget x run + allowance + one period of a mode never tried; with a
 * shared ledger, that holds for the governors sharing it together (run: the longest governed
 * time among them, allowance: the largest), not for each of them.
 */
#ifndef AOT_GOVERN_H_INCLUDED
#define AOT_GOVERN_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#define AOT_GOV_MAX_MODES 4          /* mode 0 is always native */
#define AOT_GOV_MAX_WINDOW 64        /* scored periods per window, at most (windows double) */
#define AOT_GOV_MAX_TRIES 4          /* windows of one candidate in one exploration */
#define AOT_GOV_MAX_WARMUP 8         /* warm-up periods per window, at most */

struct aot_gov_params {
    int nmodes;            /* candidates including native, 1..AOT_GOV_MAX_MODES */
    int window;            /* scored periods per window at the first exploration (e.g. 4) */
    int warmup;            /* periods discarded at the start of each window after a switch (e.g. 1) */
    double budget;         /* exploration may cost at most this fraction of the governed time so far (e.g. 0.01) */
    double margin;         /* a mode is kept only if it beats native by this fraction beyond the noise (e.g. 0.02) */
    int max_rechecks;      /* re-explorations after a decision (cap, e.g. 6) */
    uint64_t recheck_after;/* periods in the decided mode before the first re-check; doubles after each (e.g. 256) */
    double allowance;      /* start allowance: loss allowed before any budget accrued, in native periods (e.g. 2) */
    double *ledger;        /* NULL: the budget covers this governor's own loss; else the loss of
                            * every governor sharing this ledger (a rank's chains and sites), so
                            * that their explorations together stay within one budget */
    int agree;             /* 1: verdicts are agreed by all ranks (aot_gov_vote, aot_gov_agreed) */
    int keep;              /* 1: at a scheduled re-check the decided mode stays unless it
                            * clearly lost (ratio - z SE > 1 - margin); 0: it must win again */
};

/*
 * Agreed verdicts (params.agree; docs/govern.md, "Agreed verdicts").  At the end of every native
 * window of a scheduled exploration the governor casts a vote instead of deciding: what the
 * candidate window before it measured here (or that it was cut short), and which candidates this
 * rank could run next (prior, budget).  It then holds: the site runs natively (at a scheduled
 * re-check with params.keep, in the decided mode, which runs anyway), unscored, until
 * the caller hands it the sum of all ranks' votes (aot_gov_agreed), from which every rank takes
 * the same verdict and the same next window.  The caller sums the packed words with an integer
 * MPI_SUM (exact, so every rank reads the same tally); aot_gov_tally_read checks that every vote
 * was the same vote of the same exploration and about the same candidate, else the tally is
 * inconsistent and aot_gov_agreed(g, NULL) decides from this rank's own vote alone.
 */
#define AOT_GOV_VOTE_WORDS 20
struct aot_gov_vote {
    unsigned seq;          /* the re-check and the vote's number in its exploration */
    int mode;              /* the candidate judged (0: none) */
    int has;               /* its window measured: ratio and se2 hold */
    double ratio, se2;     /* its window's ratio to native and that ratio's squared SE */
    int cut;               /* its window was cut short here, at cut_ratio x native */
    double cut_ratio;
    int cheap;             /* judged at one standard error here (a cheap prior) */
    unsigned ok;           /* bit k: candidate k could run its next window here */
    unsigned todo;         /* bit k: candidate k still wants a window here */
    double base_ns;        /* native's level its ratio refers to (local: never summed) */
};
struct aot_gov_tally {
    int n;                 /* votes */
    int consistent;        /* all the same vote, about the same candidate */
    int mode, nhas, ncut, cheap_all;
    double ratio, se2, cut_ratio;   /* means over the votes that have them */
    unsigned ok_all, todo_any;
};

/* What the latest exploration found out about a candidate. */
enum aot_gov_verdict {
    AOT_GOV_UNTRIED = 0,   /* not measured yet */
    AOT_GOV_EXCLUDED,      /* aot_gov_exclude: cannot run here */
    AOT_GOV_WON,           /* faster than native beyond the noise and the margin */
    AOT_GOV_LOST,          /* measured, not faster beyond the noise and the margin */
    AOT_GOV_CUT,           /* window cut short: clearly slower, or over the budget */
    AOT_GOV_SKIPPED,       /* its prior cost exceeds native's period */
    AOT_GOV_WAITING        /* the budget left does not cover a period of it yet */
};

struct aot_gov_mode {
    int verdict;           /* enum aot_gov_verdict */
    int todo;              /* needs a window in this exploration */
    int tries;             /* windows in this exploration */
    int unclear;           /* lost because AOT_GOV_MAX_TRIES windows did not decide, or (won)
                            * kept at a re-check without a clear win */
    int ran;               /* has run at least one period */
    double prior_ns;       /* aot_gov_prior (< 0: none) */
    double rsum, r2sum, se2sum;   /* this exploration: window ratios, their squares, SE^2 */
    double psum;           /* this exploration: window statistics (interquartile means), ns */
    double ratio;          /* latest estimate of period / native period */
    double period_ns;      /* latest typical period (candidate: mean of its window statistics) */
    double loss_last;      /* typical loss per period in its latest window, ns */
    double cut_ratio;      /* the period that cut its window, over native's level */
    uint64_t scored;       /* periods scored, over all explorations */
    uint64_t round_scored; /* periods scored in the latest exploration that measured it */
    const char *why_out;   /* aot_gov_rule_out: why the mode cannot pay (static text) */
};

struct aot_gov {
    struct aot_gov_params p;
    struct aot_gov_mode m[AOT_GOV_MAX_MODES];
    int exploring;         /* 1 while an exploration runs */
    int cur;               /* the mode of the occurrence running now */
    int chosen;            /* the decision (valid once an exploration ended) */
    int win;               /* scored periods per window in this exploration */
    int rechecks;          /* scheduled re-explorations started */
    int triggers;          /* re-explorations triggered by a decided mode that slowed */
    int trigger_round;     /* the running exploration is a triggered one */
    int soon;              /* the first re-check comes early: a likely winner was left unclear */
    int keep;              /* the decided mode a scheduled re-check is checking (params.keep) */
    int order[AOT_GOV_MAX_MODES];  /* the candidates in this exploration's order */
    int norder;
    int cursor;            /* the position in order of the latest candidate */
    /* The window being measured: its mode, periods seen (warm-up included), scored samples. */
    int wmode, wseen, wn, wnwarm;
    int fill;              /* occurrences of native filler left (aligned slots) ... */
    int fill_next;         /* ... then this mode's window opens (0: native; -1: finish) */
    int lag;               /* slots passed over at the end of the latest exploration, in occurrences */
    double wbuf[AOT_GOV_MAX_WINDOW];
    double wwarm[AOT_GOV_MAX_WARMUP];  /* its warm-up periods */
    double wloss;          /* its loss counted period by period */
    /* The latest native window (level: interquartile mean; spread: relative; max period). */
    int nat_valid, nat_n;
    double nat_level, nat_spread, nat_max;
    double nat_low;        /* the lowest native level of this exploration: losses count from it */
    double spread2;        /* the relative spreads of all windows (of 2 periods or more), */
    int nspread;           /*   squared and summed, and their count */
    double nat_sum;        /* this exploration: sum of native window levels ... */
    int nat_windows;       /* ... and their count */
    /* A candidate window waiting for the native window after it. */
    int pend;              /* its mode, 0: none */
    int pend_n, pend_nb;
    double pend_level, pend_spread, pend_nlevel, pend_nspread;
    /* The decided phase. */
    uint64_t since;        /* periods since the decision */
    double ref_level;      /* native's level when the decision was taken */
    /* Agreed verdicts (params.agree). */
    int votes;             /* votes cast in this exploration */
    int vote_ready;        /* a vote waits to be taken (aot_gov_vote) */
    int holding;           /* waits for the tally (aot_gov_agreed): native or the kept mode, unscored */
    int cut_mode;          /* the candidate cut short since the latest vote, and at what ratio */
    double cut_last;
    struct aot_gov_vote vote;   /* the latest vote cast */
    uint64_t held;         /* occurrences spent holding */
    uint32_t agreed_n, local_n; /* tallies applied, and votes decided alone */
    int seeded;            /* aot_gov_seed started it decided on a cached verdict */
    /* Totals. */
    uint64_t periods;
    double total_ns;       /* time governed */
    double loss_ns;        /* exploration loss */
};

void aot_gov_params_default(struct aot_gov_params *p);
void aot_gov_init(struct aot_gov *g, const struct aot_gov_params *p);
/* The caller knows a mode cannot be run for this site (e.g. guarded impossible): never chosen. */
void aot_gov_exclude(struct aot_gov *g, int mode);
/* The caller has seen that a mode measured here cannot pay (why: static text, for the
 * statistics): excluded as above, between explorations only; the chosen mode too (its win was
 * noise), and the site runs natively.  1 when it was ruled out now. */
int aot_gov_rule_out(struct aot_gov *g, int mode, const char *why);
/* What exploring cost outside the site's periods (the time the caller spent agreeing on
 * verdicts: posting votes, testing for tallies), in the units of the periods fed: charged to
 * the budget as a candidate's loss is. */
void aot_gov_charge(struct aot_gov *g, double ns);
/* Optional: a prior estimate of a mode's extra cost per period in ns over native (e.g. the
 * calibrated cost of its mprotect calls).  A mode whose prior exceeds half the native period
 * measured is not explored (the reason says so); otherwise the prior is the loss its first
 * period is expected to cost (the budget must cover it before the mode starts). */
void aot_gov_prior(struct aot_gov *g, int mode, double extra_ns);
/* The mode to run the next occurrence in. */
int aot_gov_mode(const struct aot_gov *g);
/* One period: ns from the start of the previous occurrence to the start of this one; the
 * previous occurrence ran in the mode aot_gov_mode returned before it.  Returns the mode for
 * the occurrence starting now. */
int aot_gov_period(struct aot_gov *g, uint64_t ns);
/* An occurrence whose period is not a measurement (an interruption: the program did other
 * work between two occurrences): it counts in the schedule, as a period would, but is not
 * scored.  Returns the mode for the occurrence starting now. */
int aot_gov_skip(struct aot_gov *g);
/* Whether a period the caller measured is an interruption, to be fed with aot_gov_skip: more
 * than 8 times the shortest native period seen (*min_ns, updated when the previous occurrence
 * ran natively: ran == 0), and the period before was not one (*skipped, updated; a second one
 * in a row is a measurement).  Pure: the caller keeps *min_ns and *skipped, both 0 at first. */
int aot_gov_interrupted(uint64_t *min_ns, int *skipped, uint64_t period_ns, int ran);
/* Occurrences from now that run natively without the governor looking at their periods:
 * settled on native, those before its next scheduled re-check (UINT64_MAX when none is left);
 * exploring, the native filler left after this occurrence (a slot passed over); 0 while a
 * window measures or a chosen mode runs (which it watches).  A caller may run that many
 * occurrences without timing them and then report them with aot_gov_credit. */
uint64_t aot_gov_quiet(const struct aot_gov *g);
/* n occurrences (n <= aot_gov_quiet) that ran natively in ns in all, not timed one by one:
 * the schedule counts them as aot_gov_skip would, and the governed time includes them, at
 * most n times native's measured level (a stretch may span other work, which is not the
 * site's time: the budget is a fraction of the site's own). */
void aot_gov_credit(struct aot_gov *g, uint64_t n, double ns);
/* A verdict of an earlier run (the cache of decisions, docs/cache.md) as the starting point,
 * right after aot_gov_init (and aot_gov_exclude, aot_gov_prior): the governor skips its first
 * exploration and runs mode as if that exploration had chosen it, then re-checks it on the
 * usual schedule (the first re-check after recheck_after occurrences, at which the mode stays
 * unless it clearly lost, params.keep), and the budget accrues meanwhile.  Seeded native runs
 * quiet until then (aot_gov_quiet).  Never a promise: the re-checks measure every candidate.
 * Returns 1 when seeded; 0 when mode is out of range or excluded, or the governor has already
 * run a period (it then goes on as it was). */
int aot_gov_seed(struct aot_gov *g, int mode);
/* The verdict to keep for the next run: the mode the latest finished exploration chose, or
 * the seed before any re-check finished; -1 while the first exploration still runs (nothing
 * decided yet). */
int aot_gov_verdict(const struct aot_gov *g);
/* Whether the governor has settled (not exploring now). */
int aot_gov_decided(const struct aot_gov *g);
/* The mode the latest finished exploration chose (native before the first one ends): what the
 * site runs outside explorations. */
int aot_gov_choice(const struct aot_gov *g);
/* The typical period of a mode in its latest exploration (the mean of its windows'
 * interquartile means; 0: not measured), the periods scored over all explorations, and a
 * one-line reason for the statistics ("copied 1.18x slower than native (8 periods); ...");
 * names[mode] are the mode names.  aot_gov_reason returns what snprintf would. */
double aot_gov_median_ns(const struct aot_gov *g, int mode);
uint64_t aot_gov_scored(const struct aot_gov *g, int mode);
int aot_gov_reason(const struct aot_gov *g, const char *const *names, char *buf, size_t len);
/* Agreed verdicts: whether a vote waits to be cast (1: *v is it, taken), whether the governor
 * holds for the tally, the tally (NULL: this rank's own vote alone); packing and reading. */
int aot_gov_vote(struct aot_gov *g, struct aot_gov_vote *v);
int aot_gov_holding(const struct aot_gov *g);
void aot_gov_agreed(struct aot_gov *g, const struct aot_gov_tally *t);
void aot_gov_vote_pack(const struct aot_gov_vote *v, int64_t w[AOT_GOV_VOTE_WORDS]);
void aot_gov_tally_read(const int64_t w[AOT_GOV_VOTE_WORDS], struct aot_gov_tally *t);

/* The exploration loss and the governed time so far, ns (for tests and statistics). */
double aot_gov_loss_ns(const struct aot_gov *g);
double aot_gov_total_ns(const struct aot_gov *g);

#endif /* AOT_GOVERN_H_INCLUDED */
