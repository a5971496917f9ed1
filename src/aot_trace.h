/*
 * aot_trace.h: trace events (the writer is src/trace.c, docs/trace-format.md) and the hook
 * subsystems call.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_TRACE_H_INCLUDED
#define AOT_TRACE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* Trace events (the writer is src/trace.c, see docs/trace-format.md).  Subsystems call
 * aot_trace(); it does nothing unless AUTOOPT_TRACE is set and a writer was installed. */
enum aot_trace_kind {
    AOT_TR_CALL, AOT_TR_CONVERT, AOT_TR_PASS, AOT_TR_GUARD, AOT_TR_FAULT, AOT_TR_WAIT,
    AOT_TR_CHAIN_LEARN, AOT_TR_CHAIN_CONFIRM, AOT_TR_CHAIN_START, AOT_TR_CHAIN_END,
    AOT_TR_CHAIN_BREAK, AOT_TR_COLL_ALG
};
typedef void (*aot_trace_fn)(enum aot_trace_kind kind, int fn, uint64_t a, uint64_t b,
                             const char *text);
extern aot_trace_fn aot_trace_writer;
static inline void aot_trace(enum aot_trace_kind kind, int fn, uint64_t a, uint64_t b,
                             const char *text)
{
    if (__builtin_expect(aot_trace_writer != NULL, 0))
        aot_trace_writer(kind, fn, a, b, text);
}

/* The writer (src/trace.c).  aot_trace_init runs once aot_cfg is parsed (a no-op without
 * AUTOOPT_TRACE: 0, or -1 with a one-line reason); aot_trace_finalize writes the tables and
 * closes the file.  aot_trace_on: the file is being written (AOT_ARM_TRACE is set with it). */
int  aot_trace_init(char *err, size_t errlen);
void aot_trace_finalize(void);
extern int aot_trace_on;
/* The AOT_TR_CALL record of a call is written when it returns: the leave hook calls
 * aot_trace_leave(fn) while AOT_ARM_TRACE is set. */
void aot_trace_leave(int fn);

/* Signatures name calls in the trace (the "sig" field of a record, the "sig" lines of its
 * table); they belong to the subsystem that classifies calls (chains/).  It sets the signature
 * of the call in progress, and registers a namer for the rest. */
#define AOT_TRACE_NOSIG UINT32_MAX
void aot_trace_call_sig(uint32_t id);
/* The table text written at finalize (opaque; appended to with aot_trace_text_add). */
struct aot_trace_text;
void aot_trace_text_add(struct aot_trace_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Tabs and newlines of s become spaces (a field of the table); returns s. */
const char *aot_trace_clean(char *s);
struct aot_trace_namer {
    /* The call fn returned after ns nanoseconds; sig is what aot_trace_call_sig set for it, or
     * AOT_TRACE_NOSIG.  Returns the signature its record carries (AOT_TRACE_NOSIG: none).
     * Called with the writer busy: events it traces are dropped. */
    uint32_t (*call_done)(int fn, uint32_t sig, uint64_t ns);
    /* Appends its lines to the table, after the "str" lines and before "end". */
    void (*tables)(struct aot_trace_text *t);
};
/* One namer at most; the latest registration wins (NULL: none).  n must stay valid. */
void aot_trace_set_namer(const struct aot_trace_namer *n);

#endif /* AOT_TRACE_H_INCLUDED */
