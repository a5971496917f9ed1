/*
 * test_paging_insn: the access width of faulting instructions (paging/insn.c) on real encodings.
 * Each row was assembled with GNU as (x86-64) from the instruction shown; the width is what the
 * instruction reads or writes in memory.  Unknown instructions must answer 0, never a guess.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdlib.h>

#include "paging.h"

static const struct { const char *text; int width; unsigned char bytes[16]; } cases[] = {
    { "movb (%rdi), %al", 1, { 0x8a, 0x07 } },
    { "movw (%rdi), %ax", 2, { 0x66, 0x8b, 0x07 } },
    { "movl (%rdi), %eax", 4, { 0x8b, 0x07 } },
    { "movq (%rdi), %rax", 8, { 0x48, 0x8b, 0x07 } },
    { "movq %rax, 8(%rdi)", 8, { 0x48, 0x89, 0x47, 0x08 } },
    { "movl $5, (%rdi)", 4, { 0xc7, 0x07, 0x05, 0x00, 0x00, 0x00 } },
    { "movq $5, (%rdi)", 8, { 0x48, 0xc7, 0x07, 0x05, 0x00, 0x00, 0x00 } },
    { "movb $5, (%rdi)", 1, { 0xc6, 0x07, 0x05 } },
    { "movzbl (%rdi), %eax", 1, { 0x0f, 0xb6, 0x07 } },
    { "movzwl (%rdi), %eax", 2, { 0x0f, 0xb7, 0x07 } },
    { "movsbq (%rdi), %rax", 1, { 0x48, 0x0f, 0xbe, 0x07 } },
    { "movslq (%rdi), %rax", 4, { 0x48, 0x63, 0x07 } },
    { "addl (%rdi), %eax", 4, { 0x03, 0x07 } },
    { "addq %rax, (%rdi)", 8, { 0x48, 0x01, 0x07 } },
    { "cmpb $0, (%rdi)", 1, { 0x80, 0x3f, 0x00 } },
    { "cmpq $0, -32(%rdi)", 8, { 0x48, 0x83, 0x7f, 0xe0, 0x00 } },
    { "testl %eax, (%rdi)", 4, { 0x85, 0x07 } },
    { "incq (%rdi)", 8, { 0x48, 0xff, 0x07 } },
    { "lock xaddq %rax, (%rdi)", 8, { 0xf0, 0x48, 0x0f, 0xc1, 0x07 } },
    { "lock cmpxchgl %ecx, (%rdi)", 4, { 0xf0, 0x0f, 0xb1, 0x0f } },
    { "movss (%rdi), %xmm0", 4, { 0xf3, 0x0f, 0x10, 0x07 } },
    { "movsd (%rdi), %xmm0", 8, { 0xf2, 0x0f, 0x10, 0x07 } },
    { "movsd %xmm0, (%rdi)", 8, { 0xf2, 0x0f, 0x11, 0x07 } },
    { "movups (%rdi), %xmm0", 16, { 0x0f, 0x10, 0x07 } },
    { "movaps %xmm1, 16(%rdi)", 16, { 0x0f, 0x29, 0x4f, 0x10 } },
    { "movdqu (%rdi), %xmm2", 16, { 0xf3, 0x0f, 0x6f, 0x17 } },
    { "movdqa %xmm2, (%rdi)", 16, { 0x66, 0x0f, 0x7f, 0x17 } },
    { "movq (%rdi), %xmm0", 8, { 0xf3, 0x0f, 0x7e, 0x07 } },
    { "movq %xmm0, (%rdi)", 8, { 0x66, 0x0f, 0xd6, 0x07 } },
    { "movd (%rdi), %xmm0", 4, { 0x66, 0x0f, 0x6e, 0x07 } },
    { "movlpd (%rdi), %xmm0", 8, { 0x66, 0x0f, 0x12, 0x07 } },
    { "pcmpeqb (%rdi), %xmm0", 16, { 0x66, 0x0f, 0x74, 0x07 } },
    { "addsd (%rdi), %xmm0", 8, { 0xf2, 0x0f, 0x58, 0x07 } },
    { "addpd (%rdi), %xmm0", 16, { 0x66, 0x0f, 0x58, 0x07 } },
    { "ucomisd (%rdi), %xmm0", 8, { 0x66, 0x0f, 0x2e, 0x07 } },
    { "vmovdqu (%rdi), %ymm0", 32, { 0xc5, 0xfe, 0x6f, 0x07 } },
    { "vmovdqu %ymm1, 32(%rdi)", 32, { 0xc5, 0xfe, 0x7f, 0x4f, 0x20 } },
    { "vmovdqu (%rdi), %xmm0", 16, { 0xc5, 0xfa, 0x6f, 0x07 } },
    { "vmovups (%rdi), %ymm0", 32, { 0xc5, 0xfc, 0x10, 0x07 } },
    { "vmovsd (%rdi), %xmm0", 8, { 0xc5, 0xfb, 0x10, 0x07 } },
    { "vmovss %xmm0, (%rdi)", 4, { 0xc5, 0xfa, 0x11, 0x07 } },
    { "vpcmpeqb (%rdi), %ymm1, %ymm2", 32, { 0xc5, 0xf5, 0x74, 0x17 } },
    { "vbroadcastss (%rdi), %ymm0", 4, { 0xc4, 0xe2, 0x7d, 0x18, 0x07 } },
    { "vpbroadcastb (%rdi), %ymm0", 1, { 0xc4, 0xe2, 0x7d, 0x78, 0x07 } },
    { "vmovdqu64 (%rdi), %zmm0", 64, { 0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x07 } },
    { "vmovdqu8 %zmm1, (%rdi)", 64, { 0x62, 0xf1, 0x7f, 0x48, 0x7f, 0x0f } },
    { "vmovdqu64 (%rdi), %ymm16", 32, { 0x62, 0xe1, 0xfe, 0x28, 0x6f, 0x07 } },
    { "vaddpd (%rdi){1to8}, %zmm1, %zmm2", 8, { 0x62, 0xf1, 0xf5, 0x58, 0x58, 0x17 } },
    { "vpcmpeqb (%rdi), %zmm1, %k1", 64, { 0x62, 0xf1, 0x75, 0x48, 0x74, 0x0f } },
    { "vmovq (%rdi), %xmm0", 8, { 0xc5, 0xfa, 0x7e, 0x07 } },
    { "pushq (%rdi)", 8, { 0xff, 0x37 } },
    { "movq %fs:(%rdi), %rax", 8, { 0x64, 0x48, 0x8b, 0x07 } },
    { "movb (%rdi,%rcx,1), %al", 1, { 0x8a, 0x04, 0x0f } },
    { "movl 0x1000(%rip), %eax", 4, { 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00 } },
};

START_TEST(test_width)
{
    int w = aot_pg_insn_width(cases[_i].bytes);
    ck_assert_msg(w == cases[_i].width, "%s: width %d, expected %d", cases[_i].text, w,
                  cases[_i].width);
}
END_TEST

/* x87 (fld tbyte), bt with a register bit offset, a gather, xsave: not modelled, so 0. */
START_TEST(test_unknown)
{
    static const unsigned char fldt[16] = { 0xdb, 0x2f };                   /* fldt (%rdi) */
    static const unsigned char bt[16] = { 0x48, 0x0f, 0xa3, 0x07 };         /* bt %rax,(%rdi) */
    static const unsigned char gather[16] = { 0xc4, 0xe2, 0x75, 0x92, 0x04, 0x87 };
    static const unsigned char xsave[16] = { 0x0f, 0xae, 0x27 };            /* xsave (%rdi) */
    ck_assert_int_eq(aot_pg_insn_width(fldt), 0);
    ck_assert_int_eq(aot_pg_insn_width(bt), 0);
    ck_assert_int_eq(aot_pg_insn_width(gather), 0);
    ck_assert_int_eq(aot_pg_insn_width(xsave), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("paging_insn");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_loop_test(tc, test_width, 0, (int) (sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_unknown);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
