/*
 * fuzz.h: what every fuzz target here shares.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each target defines LLVMFuzzerTestOneInput (libFuzzer's entry point) and checks its own
 * oracle: an input may be refused, but only with a one-line, printable message of the promised
 * form, and what is accepted must survive a round trip.  A broken promise calls aot_fuzz_fail,
 * which prints the input (escaped) and aborts, so both libFuzzer and the deterministic driver
 * (fuzz_main.c) report it.
 */
#ifndef AOT_FUZZ_H_INCLUDED
#define AOT_FUZZ_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target's name, for messages ("tuning", "settings"). */
extern const char aot_fuzz_name[];
/* Tokens the mutator inserts (NULL-terminated): the words of the input language. */
extern const char *const aot_fuzz_dict[];

/* Inputs the target accepted (parsed without an error), for the driver's summary. */
extern unsigned long long aot_fuzz_accepted;

__attribute__((noreturn)) void aot_fuzz_fail(const uint8_t *data, size_t size, const char *why,
                                             const char *detail);
/* 1 when msg is one line of printable ASCII (what autoopt's messages promise). */
int aot_fuzz_printable_line(const char *msg);

#endif /* AOT_FUZZ_H_INCLUDED */
