/*
 * insn.c: how many bytes the memory operand of an x86-64 instruction covers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The fault handler knows the first byte a faulting access touched (si_addr), not its width.
 * Before 2026-11-24 it assumed 64 bytes for every instruction but REP strings, and an 8-byte
 * read by MPICH of its own datatype object, 32 bytes before a pending receive buffer, was taken
 * for a touch of that buffer inside MPI and turned into a crash (issue 15, finding 7).
 *
 * Pure: reads the instruction bytes only (no registers, no system calls), so it is safe in a
 * signal handler and unit-tested (tests/unit/test_paging_insn.c).  It covers what compilers and
 * glibc's string functions emit for loads and stores: the one-byte map (moves, ALU, shifts,
 * test, inc/dec, push/pop), the 0F map (movzx/movsx, cmov, xadd/cmpxchg, SSE moves and
 * arithmetic, scalar and packed), and VEX and EVEX encodings with their vector length, scalar
 * forms and broadcasts.  Anything else (x87, bit tests with a register offset, gathers, xsave,
 * movdir64b) returns 0: the caller then stays conservative.
 */
#include "paging.h"

/* Legacy and REX prefixes of one instruction. */
struct aot_pg_pfx {
    int p66, pf2, pf3, rexw;
};

/* Width of an SSE-family operand in the 0F map (legacy encoding): scalar by F3/F2, MMX (8) or
 * XMM (16) otherwise. */
static int aot_pg_width_0f(int op, const struct aot_pg_pfx *x, int osz)
{
    const int xmm = x->p66 || x->pf3 || x->pf2 ? 16 : 8;

    switch (op) {
    case 0x10: case 0x11:                       /* movups/movupd/movss/movsd */
    case 0x51: case 0x58: case 0x59: case 0x5c: case 0x5d: case 0x5e: case 0x5f:
        return x->pf3 ? 4 : x->pf2 ? 8 : 16;
    case 0x12: case 0x13: case 0x16: case 0x17: /* movlps/movhps/movlpd/movhpd */
    case 0xd6:                                  /* movq xmm -> m64 */
        return 8;
    case 0x14: case 0x15: case 0x28: case 0x29: case 0x2b: case 0x54: case 0x55: case 0x56:
    case 0x57:
        return 16;
    case 0x2a:                                  /* cvtsi2ss/sd from m32/m64 */
        return x->rexw ? 8 : 4;
    case 0x2c: case 0x2d:                       /* cvt(t)ss2si, cvt(t)sd2si */
        return x->pf2 ? 8 : 4;
    case 0x2e: case 0x2f:                       /* ucomiss/ucomisd, comiss/comisd */
        return x->p66 ? 8 : 4;
    case 0x6e:                                  /* movd/movq to a vector register */
        return x->rexw ? 8 : 4;
    case 0x7e:                                  /* movq m64 -> xmm (F3), movd/movq store */
        return x->pf3 ? 8 : x->rexw ? 8 : 4;
    case 0xb6: case 0xbe: case 0xb0: case 0xc0:
        return 1;
    case 0xb7: case 0xbf:
        return 2;
    case 0xaf: case 0xb1: case 0xc1: case 0xc3:
        return osz;
    case 0xc7:                                  /* cmpxchg8b / cmpxchg16b */
        return x->rexw ? 16 : 8;
    case 0x18: case 0x19: case 0x1a: case 0x1b: case 0x1c: case 0x1d: case 0x1e: case 0x1f:
        return 1;                               /* prefetch and hint nops */
    default:
        break;
    }
    if (op >= 0x40 && op <= 0x4f)               /* cmovcc */
        return osz;
    if ((op >= 0x60 && op <= 0x70) || (op >= 0x74 && op <= 0x76) || op == 0x7f ||
        (op >= 0xd0 && op <= 0xff && op != 0xd6))
        return xmm;                             /* MMX/SSE2 integer, movdqa/movdqu */
    return 0;
}

/* VEX/EVEX: map (1 = 0F, 2 = 0F38, 3 = 0F3A), pp (0 none, 1 66, 2 F3, 3 F2), vector bytes. */
static int aot_pg_width_vex(int map, int op, int pp, int w, int vl, int bcast)
{
    if (bcast)                                  /* EVEX embedded broadcast: one element */
        return w ? 8 : 4;
    if (map == 1) {
        switch (op) {
        case 0x10: case 0x11:
        case 0x51: case 0x58: case 0x59: case 0x5c: case 0x5d: case 0x5e: case 0x5f:
            return pp == 2 ? 4 : pp == 3 ? 8 : vl;
        case 0x12: case 0x13: case 0x16: case 0x17: case 0xd6:
            return 8;
        case 0x2e: case 0x2f:
            return pp == 1 ? 8 : 4;
        case 0x6e:
            return w ? 8 : 4;
        case 0x7e:
            return pp == 2 || w ? 8 : 4;
        default:
            return vl;
        }
    }
    if (map == 2) {
        switch (op) {
        case 0x18: case 0x58: return 4;         /* vbroadcastss, vpbroadcastd */
        case 0x19: case 0x59: return 8;         /* vbroadcastsd, vpbroadcastq */
        case 0x1a: case 0x5a: return 16;        /* vbroadcastf128 / i128 */
        case 0x78: return 1;                    /* vpbroadcastb */
        case 0x79: return 2;                    /* vpbroadcastw */
        case 0x90: case 0x91: case 0x92: case 0x93:
            return 0;                           /* gathers: many addresses */
        default: return vl;
        }
    }
    if (map == 3)
        return vl;
    return 0;
}

int aot_pg_insn_width(const unsigned char *p)
{
    struct aot_pg_pfx x = { 0, 0, 0, 0 };
    int i = 0, op, osz;

    for (; i < 14; i++) {
        unsigned char c = p[i];
        if (c == 0x66)
            x.p66 = 1;
        else if (c == 0xf2)
            x.pf2 = 1;
        else if (c == 0xf3)
            x.pf3 = 1;
        else if (c != 0xf0 && c != 0x67 && c != 0x2e && c != 0x3e && c != 0x26 && c != 0x36 &&
                 c != 0x64 && c != 0x65)
            break;
    }
    if (i >= 14)
        return 0;
    if ((p[i] & 0xf0) == 0x40) {
        x.rexw = (p[i] & 8) != 0;
        i++;
    }
    osz = x.rexw ? 8 : x.p66 ? 2 : 4;
    op = p[i];

    /* VEX (C5: two bytes, C4: three) and EVEX (62); in 64-bit mode these are never LDS/LES/BOUND */
    if (op == 0xc5)
        return aot_pg_width_vex(1, p[i + 2], p[i + 1] & 3, 0, (p[i + 1] & 4) ? 32 : 16, 0);
    if (op == 0xc4)
        return aot_pg_width_vex(p[i + 1] & 0x1f, p[i + 3], p[i + 2] & 3, p[i + 2] >> 7,
                                (p[i + 2] & 4) ? 32 : 16, 0);
    if (op == 0x62) {
        int ll = (p[i + 3] >> 5) & 3, b = (p[i + 3] >> 4) & 1;
        return aot_pg_width_vex(p[i + 1] & 3, p[i + 4], p[i + 2] & 3, p[i + 2] >> 7,
                                ll == 0 ? 16 : ll == 1 ? 32 : 64, b);
    }
    if (op == 0x0f) {
        int op2 = p[i + 1];
        if (op2 == 0x38 || op2 == 0x3a)         /* SSSE3/SSE4 in legacy encoding */
            return x.p66 ? 16 : 8;
        return aot_pg_width_0f(op2, &x, osz);
    }
    if (op < 0x40 && (op & 7) < 4)              /* add, or, adc, sbb, and, sub, xor, cmp */
        return (op & 1) ? osz : 1;
    switch (op) {
    case 0x80: case 0x82: case 0x84: case 0x86: case 0x88: case 0x8a: case 0xc0: case 0xc6:
    case 0xd0: case 0xd2: case 0xf6: case 0xfe: case 0xa0: case 0xa2:
        return 1;
    case 0x81: case 0x83: case 0x85: case 0x87: case 0x89: case 0x8b: case 0xc1: case 0xc7:
    case 0xd1: case 0xd3: case 0xf7: case 0x69: case 0x6b: case 0xa1: case 0xa3:
        return osz;
    case 0x63:                                  /* movsxd */
        return 4;
    case 0x8c: case 0x8e:                       /* mov to or from a segment register */
        return 2;
    case 0x8f:                                  /* pop r/m64 */
        return 8;
    case 0xff: {
        int reg = (p[i + 1] >> 3) & 7;
        return reg == 2 || reg == 4 || reg == 6 ? 8 : osz;   /* call, jmp, push: 64 bits */
    }
    default:
        return 0;
    }
}
