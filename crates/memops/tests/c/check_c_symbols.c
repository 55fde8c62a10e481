/*
 * memops' `c-symbols` feature seen from C: this program is linked with a static library
 * that exports memops' memcpy, memmove, memset, memcmp and bcmp, and checks each against
 * byte loops of its own over every size 0..=300 (at several source and destination
 * offsets, with guard bytes around every write) and a few large sizes.
 *
 * Built with -fno-builtin, so that the compiler calls the functions instead of expanding
 * them; the reference loops go through volatile pointers, so that it cannot turn them into
 * calls of the functions they check. Prints "c-symbols from C ok" and exits 0, or prints the
 * first mismatch and exits 1.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int bcmp(const void *a, const void *b, size_t n);

/* Guard bytes on each side of every region written. */
#define GUARD 64
#define GUARD_BYTE 0xA5
#define SMALL_MAX 300
#define OFFSETS 4

static const size_t large_sizes[] = {
    4096 + 7, 65536 + 3, (1 << 20) + 5, (3 << 20) + 17, (9 << 20) + 1,
};

static unsigned long long pattern_state;

static unsigned char next_byte(void) {
    pattern_state ^= pattern_state << 13;
    pattern_state ^= pattern_state >> 7;
    pattern_state ^= pattern_state << 17;
    return (unsigned char)(pattern_state >> 24);
}

static void fill_pattern(volatile unsigned char *p, size_t n, unsigned long long seed) {
    pattern_state = seed | 1;
    for (size_t i = 0; i < n; i++) p[i] = next_byte();
}

static void fill_byte(volatile unsigned char *p, size_t n, unsigned char b) {
    for (size_t i = 0; i < n; i++) p[i] = b;
}

static void copy_bytes(volatile unsigned char *dst, const volatile unsigned char *src, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = src[i];
}

/* 0 if equal, else the sign of the first differing byte (as unsigned char). */
static int cmp_bytes(const volatile unsigned char *a, const volatile unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int sign(int x) { return (x > 0) - (x < 0); }

static void fail(const char *what, size_t n, size_t o1, size_t o2) {
    printf("FAIL %s: n=%zu offsets %zu, %zu\n", what, n, o1, o2);
    exit(1);
}

static void check_guards(const volatile unsigned char *buf, size_t lo, size_t hi, size_t total,
                         const char *what, size_t n, size_t o1, size_t o2) {
    for (size_t i = 0; i < lo; i++)
        if (buf[i] != GUARD_BYTE) fail(what, n, o1, o2);
    for (size_t i = hi; i < total; i++)
        if (buf[i] != GUARD_BYTE) fail(what, n, o1, o2);
}

/* memcpy of n bytes from src + so to dst + GUARD + dof. */
static void check_memcpy(unsigned char *src, unsigned char *dst, size_t n, size_t so,
                         size_t dof) {
    size_t total = n + OFFSETS + 2 * GUARD;
    fill_pattern(src, n + OFFSETS, n * 31 + so);
    fill_byte(dst, total, GUARD_BYTE);
    unsigned char *d = dst + GUARD + dof;
    if (memcpy(d, src + so, n) != d) fail("memcpy return value", n, so, dof);
    if (cmp_bytes(d, src + so, n) != 0) fail("memcpy bytes", n, so, dof);
    check_guards(dst, GUARD + dof, GUARD + dof + n, total, "memcpy guard", n, so, dof);
}

/* memmove of n bytes within buf, from GUARD + s to GUARD + d (they may overlap). */
static void check_memmove(unsigned char *buf, unsigned char *want, size_t n, size_t s,
                          size_t d) {
    size_t span = n + (s > d ? s : d);
    size_t total = span + 2 * GUARD;
    fill_byte(buf, total, GUARD_BYTE);
    fill_pattern(buf + GUARD, span, n * 17 + s * 5 + d);
    /* The reference: the same move through a copy of the source. */
    copy_bytes(want, buf, total);
    copy_bytes(want + total, buf + GUARD + s, n);
    copy_bytes(want + GUARD + d, want + total, n);
    if (memmove(buf + GUARD + d, buf + GUARD + s, n) != buf + GUARD + d)
        fail("memmove return value", n, s, d);
    if (cmp_bytes(buf, want, total) != 0) fail("memmove bytes or guards", n, s, d);
}

/* memset of n bytes at dst + GUARD + o; c has bits above the low byte (C: only it counts). */
static void check_memset(unsigned char *dst, size_t n, size_t o) {
    size_t total = n + OFFSETS + 2 * GUARD;
    int c = 0x100 | (int)((n * 7 + o) & 0xff);
    unsigned char b = (unsigned char)c;
    if (b == GUARD_BYTE) b = (unsigned char)(c = 0x15A);
    fill_byte(dst, total, GUARD_BYTE);
    unsigned char *d = dst + GUARD + o;
    if (memset(d, c, n) != d) fail("memset return value", n, o, 0);
    for (size_t i = 0; i < n; i++)
        if (((volatile unsigned char *)d)[i] != b) fail("memset bytes", n, o, 0);
    check_guards(dst, GUARD + o, GUARD + o + n, total, "memset guard", n, o, 0);
}

/* memcmp and bcmp of a + oa against b + ob: equal, then a difference at a few positions
 * each way, including bytes whose order differs between signed and unsigned char. */
static void check_compare(unsigned char *a, unsigned char *b, size_t n, size_t oa, size_t ob) {
    fill_pattern(a + oa, n, n * 13 + oa);
    copy_bytes(b + ob, a + oa, n);
    if (memcmp(a + oa, b + ob, n) != 0) fail("memcmp of equal bytes", n, oa, ob);
    if (bcmp(a + oa, b + ob, n) != 0) fail("bcmp of equal bytes", n, oa, ob);
    if (n == 0) return;
    size_t positions[] = {0, n / 2, n - 1};
    static const unsigned char pairs[][2] = {{0x01, 0x80}, {0x80, 0x7f}, {0x00, 0xff}, {'a', 'b'}};
    for (size_t k = 0; k < 3; k++) {
        size_t at = positions[k];
        unsigned char keep_a = a[oa + at], keep_b = b[ob + at];
        for (size_t p = 0; p < 4; p++) {
            a[oa + at] = pairs[p][0];
            b[ob + at] = pairs[p][1];
            int want = cmp_bytes(a + oa, b + ob, n);
            if (sign(memcmp(a + oa, b + ob, n)) != want) fail("memcmp sign", n, oa, at);
            if (sign(memcmp(b + ob, a + oa, n)) != -want) fail("memcmp sign, swapped", n, oa, at);
            if (bcmp(a + oa, b + ob, n) == 0) fail("bcmp missed a difference", n, oa, at);
        }
        a[oa + at] = keep_a;
        b[ob + at] = keep_b;
    }
}

int main(void) {
    size_t max = (9 << 20) + 1;
    size_t cap = 2 * max + 4 * GUARD + 2 * OFFSETS;
    unsigned char *x = malloc(cap), *y = malloc(cap), *z = malloc(2 * cap);
    if (!x || !y || !z) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    for (size_t n = 0; n <= SMALL_MAX; n++) {
        for (size_t o1 = 0; o1 < OFFSETS; o1++) {
            for (size_t o2 = 0; o2 < OFFSETS; o2++) {
                check_memcpy(x, y, n, o1, o2);
                check_compare(x, y, n, o1, o2);
            }
            check_memset(y, n, o1);
        }
        /* Overlapping moves both ways, and disjoint ones. */
        static const size_t shifts[] = {0, 1, 7, 16, 33, 64};
        for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; k++) {
            check_memmove(x, z, n, 0, shifts[k]);
            check_memmove(x, z, n, shifts[k], 0);
        }
        check_memmove(x, z, n, 3, n + 5);
    }
    for (size_t k = 0; k < sizeof large_sizes / sizeof large_sizes[0]; k++) {
        size_t n = large_sizes[k];
        check_memcpy(x, y, n, 0, 0);
        check_memcpy(x, y, n, 1, 3);
        check_memset(y, n, 0);
        check_memset(y, n, 3);
        check_compare(x, y, n, 0, 0);
        check_compare(x, y, n, 2, 1);
        check_memmove(x, z, n, 0, 1);
        check_memmove(x, z, n, 65, 0);
        check_memmove(x, z, n, 0, n / 2);
        check_memmove(x, z, n, 0, n + 3);
    }
    free(x);
    free(y);
    free(z);
    printf("c-symbols from C ok\n");
    return 0;
}
