/* Variable-time ristretto255 arithmetic for VERIFIERS ONLY (public data).
 *
 * Optional accelerator of p2p66's replay verifier, built by scripts/build_r255.py
 * and loaded by p2p66/crypto/fastgroup.py through ctypes. Written from the
 * specifications: RFC 9496 (ristretto255 decoding, encoding, SQRT_RATIO_M1 and
 * constants), RFC 8032 section 5.1 (edwards25519 and its field), Hisil, Wong,
 * Carter and Dawson, "Twisted Edwards Curves Revisited" (2008), section 3 (extended
 * coordinates, a = -1: addition and doubling), and the textbook width-w NAF and
 * Straus interleaving (Hankerson, Menezes and Vanstone, Guide to ECC, 3.3).
 *
 * Every branch and table index depends on the scalars: NEVER call this with a
 * secret. rbcl (libsodium) stays the reference and does all secret arithmetic.
 *
 * Field elements: 5 limbs of 51 bits, radix 2^51, products through unsigned __int128.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>

typedef unsigned __int128 u128;
typedef struct { uint64_t v[5]; } fe;
typedef struct { fe X, Y, Z, T; } ge;            /* extended: x = X/Z, y = Y/Z, xy = T/Z */
typedef struct { fe ypx, ymx, z2, t2d; } cached; /* Y+X, Y-X, 2Z, 2dT of a point */

#define MASK51 ((uint64_t)0x7ffffffffffffULL)

static const fe FE_ONE = {{1, 0, 0, 0, 0}};
static const fe FE_D2 = {{0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL,
                          0x6738cc7407977ULL, 0x2406d9dc56dffULL}};
static const fe FE_D = {{0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL,
                         0x739c663a03cbbULL, 0x52036cee2b6ffULL}};
static const fe FE_SQRT_M1 = {{0x61b274a0ea0b0ULL, 0xd5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL,
                               0x78595a6804c9eULL, 0x2b8324804fc1dULL}};
static const fe FE_INVSQRT_A_MINUS_D = {{0xfdaa805d40eaULL, 0x2eb482e57d339ULL,
                                         0x7610274bc58ULL, 0x6510b613dc8ffULL,
                                         0x786c8905cfaffULL}};

/* ---- field arithmetic modulo p = 2^255 - 19 ---------------------------------------- */

static void fe_carry(fe *h) {
    uint64_t c;
    c = h->v[0] >> 51; h->v[0] &= MASK51; h->v[1] += c;
    c = h->v[1] >> 51; h->v[1] &= MASK51; h->v[2] += c;
    c = h->v[2] >> 51; h->v[2] &= MASK51; h->v[3] += c;
    c = h->v[3] >> 51; h->v[3] &= MASK51; h->v[4] += c;
    c = h->v[4] >> 51; h->v[4] &= MASK51; h->v[0] += 19 * c;
}

/* no carry: every sum here feeds a multiplication or a subtraction (limbs below 2^53) */
static void fe_add(fe *h, const fe *f, const fe *g) {
    for (int i = 0; i < 5; i++) h->v[i] = f->v[i] + g->v[i];
}

/* f - g + 4p: limbs stay positive for any g with limbs below 2^53 */
static void fe_sub(fe *h, const fe *f, const fe *g) {
    h->v[0] = f->v[0] + 0x1fffffffffffb4ULL - g->v[0];
    for (int i = 1; i < 5; i++) h->v[i] = f->v[i] + 0x1ffffffffffffcULL - g->v[i];
    fe_carry(h);
}

static void fe_neg(fe *h, const fe *f) {
    fe zero = {{0, 0, 0, 0, 0}};
    fe_sub(h, &zero, f);
}

static void fe_reduce_wide(fe *h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4) {
    uint64_t c;
    c = (uint64_t)(r0 >> 51); r1 += c; uint64_t h0 = (uint64_t)r0 & MASK51;
    c = (uint64_t)(r1 >> 51); r2 += c; uint64_t h1 = (uint64_t)r1 & MASK51;
    c = (uint64_t)(r2 >> 51); r3 += c; uint64_t h2 = (uint64_t)r2 & MASK51;
    c = (uint64_t)(r3 >> 51); r4 += c; uint64_t h3 = (uint64_t)r3 & MASK51;
    c = (uint64_t)(r4 >> 51); uint64_t h4 = (uint64_t)r4 & MASK51;
    h0 += 19 * c;
    c = h0 >> 51; h0 &= MASK51; h1 += c;
    h->v[0] = h0; h->v[1] = h1; h->v[2] = h2; h->v[3] = h3; h->v[4] = h4;
}

/* f^2: the cross terms once, doubled (15 products instead of 25) */
static void fe_sq(fe *h, const fe *f) {
    const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
    const uint64_t d0 = 2 * f0, d1 = 2 * f1, f3_19 = 19 * f3, f4_19 = 19 * f4;
    const uint64_t f3_38 = 2 * f3_19, f4_38 = 2 * f4_19;
    u128 r0 = (u128)f0 * f0 + (u128)f1 * f4_38 + (u128)f2 * f3_38;
    u128 r1 = (u128)d0 * f1 + (u128)f2 * f4_38 + (u128)f3 * f3_19;
    u128 r2 = (u128)d0 * f2 + (u128)f1 * f1 + (u128)f3 * f4_38;
    u128 r3 = (u128)d0 * f3 + (u128)d1 * f2 + (u128)f4 * f4_19;
    u128 r4 = (u128)d0 * f4 + (u128)d1 * f3 + (u128)f2 * f2;
    fe_reduce_wide(h, r0, r1, r2, r3, r4);
}

static void fe_mul(fe *h, const fe *f, const fe *g) {
    const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
    const uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
    const uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
    u128 r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19 +
              (u128)f4 * g1_19;
    u128 r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19 +
              (u128)f4 * g2_19;
    u128 r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19 +
              (u128)f4 * g3_19;
    u128 r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 +
              (u128)f4 * g4_19;
    u128 r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
    fe_reduce_wide(h, r0, r1, r2, r3, r4);
}

static void fe_sqn(fe *h, const fe *f, int n) {
    fe_sq(h, f);
    for (int i = 1; i < n; i++) fe_sq(h, h);
}

/* The canonical 32 bytes (value fully reduced below p). */
static void fe_tobytes(uint8_t s[32], const fe *f) {
    fe h = *f;
    fe_carry(&h);
    fe_carry(&h);
    uint64_t q = (h.v[0] + 19) >> 51;
    q = (h.v[1] + q) >> 51;
    q = (h.v[2] + q) >> 51;
    q = (h.v[3] + q) >> 51;
    q = (h.v[4] + q) >> 51; /* 1 if h >= p */
    h.v[0] += 19 * q;
    uint64_t c;
    c = h.v[0] >> 51; h.v[0] &= MASK51; h.v[1] += c;
    c = h.v[1] >> 51; h.v[1] &= MASK51; h.v[2] += c;
    c = h.v[2] >> 51; h.v[2] &= MASK51; h.v[3] += c;
    c = h.v[3] >> 51; h.v[3] &= MASK51; h.v[4] += c;
    h.v[4] &= MASK51; /* drops 2^255: subtracts p together with the 19 added */
    uint64_t w[4];
    w[0] = h.v[0] | (h.v[1] << 51);
    w[1] = (h.v[1] >> 13) | (h.v[2] << 38);
    w[2] = (h.v[2] >> 26) | (h.v[3] << 25);
    w[3] = (h.v[3] >> 39) | (h.v[4] << 12);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) s[8 * i + j] = (uint8_t)(w[i] >> (8 * j));
}

/* The low 255 bits of s (the caller decides about canonical encodings). */
static void fe_frombytes(fe *h, const uint8_t s[32]) {
    uint64_t w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = 0;
        for (int j = 0; j < 8; j++) w[i] |= (uint64_t)s[8 * i + j] << (8 * j);
    }
    h->v[0] = w[0] & MASK51;
    h->v[1] = ((w[0] >> 51) | (w[1] << 13)) & MASK51;
    h->v[2] = ((w[1] >> 38) | (w[2] << 26)) & MASK51;
    h->v[3] = ((w[2] >> 25) | (w[3] << 39)) & MASK51;
    h->v[4] = (w[3] >> 12) & MASK51;
}

static int fe_is_negative(const fe *f) {
    uint8_t s[32];
    fe_tobytes(s, f);
    return s[0] & 1;
}

static int fe_is_zero(const fe *f) {
    uint8_t s[32], z[32] = {0};
    fe_tobytes(s, f);
    return memcmp(s, z, 32) == 0;
}

static int fe_equal(const fe *f, const fe *g) {
    uint8_t a[32], b[32];
    fe_tobytes(a, f);
    fe_tobytes(b, g);
    return memcmp(a, b, 32) == 0;
}

static void fe_abs(fe *h, const fe *f) {
    if (fe_is_negative(f)) fe_neg(h, f);
    else *h = *f;
}

/* z^((p-5)/8) = z^(2^252 - 3), by a chain of squarings and multiplications */
static void fe_pow22523(fe *out, const fe *z) {
    fe z2, z9, z11, t, a, b, c;
    fe_sq(&z2, z);                 /* 2 */
    fe_sqn(&t, &z2, 2);            /* 8 */
    fe_mul(&z9, &t, z);            /* 9 */
    fe_mul(&z11, &z9, &z2);        /* 11 */
    fe_sq(&t, &z11);               /* 22 */
    fe_mul(&a, &t, &z9);           /* 31 = 2^5 - 1 */
    fe_sqn(&t, &a, 5);
    fe_mul(&a, &t, &a);            /* 2^10 - 1 */
    fe_sqn(&t, &a, 10);
    fe_mul(&b, &t, &a);            /* 2^20 - 1 */
    fe_sqn(&t, &b, 20);
    fe_mul(&t, &t, &b);            /* 2^40 - 1 */
    fe_sqn(&t, &t, 10);
    fe_mul(&a, &t, &a);            /* 2^50 - 1 */
    fe_sqn(&t, &a, 50);
    fe_mul(&b, &t, &a);            /* 2^100 - 1 */
    fe_sqn(&t, &b, 100);
    fe_mul(&c, &t, &b);            /* 2^200 - 1 */
    fe_sqn(&t, &c, 50);
    fe_mul(&a, &t, &a);            /* 2^250 - 1 */
    fe_sqn(&t, &a, 2);             /* 2^252 - 4 */
    fe_mul(out, &t, z);            /* 2^252 - 3 */
}

/* RFC 9496 section 4.2, SQRT_RATIO_M1(u, v): returns was_square, sets r. */
static int sqrt_ratio_m1(fe *r, const fe *u, const fe *v) {
    fe v2, v3, v7, uv3, uv7, p, check, neg_u, neg_u_i, r_prime;
    fe_sq(&v2, v);
    fe_mul(&v3, &v2, v);
    fe_sq(&v7, &v3);
    fe_mul(&v7, &v7, v);
    fe_mul(&uv3, u, &v3);
    fe_mul(&uv7, u, &v7);
    fe_pow22523(&p, &uv7);
    fe_mul(r, &uv3, &p);
    fe_sq(&check, r);
    fe_mul(&check, &check, v);
    fe_neg(&neg_u, u);
    fe_mul(&neg_u_i, &neg_u, &FE_SQRT_M1);
    int correct = fe_equal(&check, u);
    int flipped = fe_equal(&check, &neg_u);
    int flipped_i = fe_equal(&check, &neg_u_i);
    if (flipped || flipped_i) {
        fe_mul(&r_prime, r, &FE_SQRT_M1);
        *r = r_prime;
    }
    fe_abs(r, r);
    return correct || flipped;
}

/* ---- ristretto255 encoding (RFC 9496 sections 4.3.1 and 4.3.2) ---------------------- */

static int ge_decode(ge *out, const uint8_t s_bytes[32]) {
    fe s, ss, u1, u2, u2_sqr, v, t, invsqrt, den_x, den_y, x, one = FE_ONE;
    uint8_t check[32];
    if (s_bytes[31] & 0x80) return 0;
    fe_frombytes(&s, s_bytes);
    fe_tobytes(check, &s);
    if (memcmp(check, s_bytes, 32) != 0) return 0; /* not below p */
    if (s_bytes[0] & 1) return 0;                  /* IS_NEGATIVE(s) */
    fe_sq(&ss, &s);
    fe_sub(&u1, &one, &ss);
    fe_add(&u2, &one, &ss);
    fe_sq(&u2_sqr, &u2);
    fe_sq(&t, &u1);
    fe_mul(&t, &t, &FE_D);
    fe_neg(&t, &t);
    fe_sub(&v, &t, &u2_sqr); /* -(D * u1^2) - u2^2 */
    fe_mul(&t, &v, &u2_sqr);
    int was_square = sqrt_ratio_m1(&invsqrt, &one, &t);
    fe_mul(&den_x, &invsqrt, &u2);
    fe_mul(&den_y, &invsqrt, &den_x);
    fe_mul(&den_y, &den_y, &v);
    fe_add(&x, &s, &s);
    fe_mul(&x, &x, &den_x);
    fe_abs(&x, &x);
    out->X = x;
    fe_mul(&out->Y, &u1, &den_y);
    out->Z = one;
    fe_mul(&out->T, &out->X, &out->Y);
    if (!was_square || fe_is_negative(&out->T) || fe_is_zero(&out->Y)) return 0;
    return 1;
}

static void ge_encode(uint8_t s_bytes[32], const ge *p) {
    fe u1, u2, t, invsqrt, den1, den2, z_inv, ix, iy, enchanted, x, y, den_inv, one = FE_ONE;
    fe_add(&t, &p->Z, &p->Y);
    fe_sub(&u1, &p->Z, &p->Y);
    fe_mul(&u1, &t, &u1);
    fe_mul(&u2, &p->X, &p->Y);
    fe_sq(&t, &u2);
    fe_mul(&t, &t, &u1);
    sqrt_ratio_m1(&invsqrt, &one, &t);
    fe_mul(&den1, &invsqrt, &u1);
    fe_mul(&den2, &invsqrt, &u2);
    fe_mul(&z_inv, &den1, &den2);
    fe_mul(&z_inv, &z_inv, &p->T);
    fe_mul(&ix, &p->X, &FE_SQRT_M1);
    fe_mul(&iy, &p->Y, &FE_SQRT_M1);
    fe_mul(&enchanted, &den1, &FE_INVSQRT_A_MINUS_D);
    fe_mul(&t, &p->T, &z_inv);
    if (fe_is_negative(&t)) {
        x = iy; y = ix; den_inv = enchanted;
    } else {
        x = p->X; y = p->Y; den_inv = den2;
    }
    fe_mul(&t, &x, &z_inv);
    if (fe_is_negative(&t)) fe_neg(&y, &y);
    fe_sub(&t, &p->Z, &y);
    fe_mul(&t, &den_inv, &t);
    fe_abs(&t, &t);
    fe_tobytes(s_bytes, &t);
}

/* A verifier decodes the same deck points several times (validation, weighted sums,
 * openings): the last decodings are kept, by encoding, in a direct-mapped table.
 * Decoding is a pure function of the 32 bytes, so a hit gives what decoding would.
 * Not thread-safe: the Python side loads this library with ctypes.PyDLL (GIL held). */
#define CACHE_SLOTS 1024
static struct { uint8_t key[32]; int used; ge p; } decoded[CACHE_SLOTS];

static int ge_decode_cached(ge *out, const uint8_t s[32]) {
    uint64_t h = 0;
    for (int i = 0; i < 8; i++) h |= (uint64_t)s[i + 1] << (8 * i);
    size_t slot = (size_t)(h ^ (h >> 29)) % CACHE_SLOTS;
    if (decoded[slot].used && memcmp(decoded[slot].key, s, 32) == 0) {
        *out = decoded[slot].p;
        return 1;
    }
    if (!ge_decode(out, s)) return 0;
    memcpy(decoded[slot].key, s, 32);
    decoded[slot].p = *out;
    decoded[slot].used = 1;
    return 1;
}

/* ---- edwards25519 group law, a = -1 (Hisil et al. 2008, section 3) ----------------- */

static void ge_identity(ge *p) {
    memset(p, 0, sizeof *p);
    p->Y.v[0] = 1;
    p->Z.v[0] = 1;
}

static void ge_to_cached(cached *c, const ge *p) {
    fe_add(&c->ypx, &p->Y, &p->X);
    fe_sub(&c->ymx, &p->Y, &p->X);
    fe_add(&c->z2, &p->Z, &p->Z);
    fe_mul(&c->t2d, &p->T, &FE_D2);
}

/* r = p + q (negate: p - q), the unified addition with q in cached form: 8M */
static void ge_add(ge *r, const ge *p, const cached *q, int negate) {
    fe a, b, c, d, e, f, g, h, t;
    fe_sub(&t, &p->Y, &p->X);
    fe_mul(&a, &t, negate ? &q->ypx : &q->ymx);
    fe_add(&t, &p->Y, &p->X);
    fe_mul(&b, &t, negate ? &q->ymx : &q->ypx);
    fe_mul(&c, &p->T, &q->t2d);
    if (negate) fe_neg(&c, &c);
    fe_mul(&d, &p->Z, &q->z2);
    fe_sub(&e, &b, &a);
    fe_sub(&f, &d, &c);
    fe_add(&g, &d, &c);
    fe_add(&h, &b, &a);
    fe_mul(&r->X, &e, &f);
    fe_mul(&r->Y, &g, &h);
    fe_mul(&r->T, &e, &h);
    fe_mul(&r->Z, &f, &g);
}

/* r = 2p: 4M + 4S (3M without T, when another doubling follows) */
static void ge_double(ge *r, const ge *p, int need_t) {
    fe a, b, c, e, f, g, h, t;
    fe_sq(&a, &p->X);
    fe_sq(&b, &p->Y);
    fe_sq(&c, &p->Z);
    fe_add(&c, &c, &c);
    fe_add(&t, &p->X, &p->Y);
    fe_sq(&e, &t);
    fe_sub(&e, &e, &a);
    fe_sub(&e, &e, &b); /* E = (X+Y)^2 - A - B */
    fe_sub(&g, &b, &a); /* G = -A + B */
    fe_sub(&f, &g, &c); /* F = G - C */
    fe_add(&h, &a, &b);
    fe_neg(&h, &h);     /* H = -A - B */
    fe_mul(&r->X, &e, &f);
    fe_mul(&r->Y, &g, &h);
    if (need_t) fe_mul(&r->T, &e, &h);
    fe_mul(&r->Z, &f, &g);
}

/* ---- width-5 NAF and Straus interleaving ------------------------------------------- */

#define NAF_DIGITS 257
#define WINDOW 5
#define TABLE (1 << (WINDOW - 2)) /* odd multiples P, 3P, .., 15P */

/* digits[i] in {0, +-1, +-3, .., +-15}, sum digits[i]*2^i = the 256-bit scalar; returns
 * one past the highest non-zero digit. */
static int wnaf(int8_t digits[NAF_DIGITS], const uint8_t s[32]) {
    uint64_t k[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) k[i] |= (uint64_t)s[8 * i + j] << (8 * j);
    int top = 0;
    for (int i = 0; i < NAF_DIGITS; i++) {
        int d = 0;
        if (k[0] & 1) {
            d = (int)(k[0] & ((1u << WINDOW) - 1));
            if (d >= (1 << (WINDOW - 1))) d -= 1 << WINDOW;
            if (d > 0) { /* k -= d */
                uint64_t borrow = (uint64_t)d, old;
                for (int w = 0; w < 5 && borrow; w++) {
                    old = k[w]; k[w] -= borrow; borrow = old < borrow;
                }
            } else { /* k += -d */
                uint64_t carry = (uint64_t)(-d);
                for (int w = 0; w < 5 && carry; w++) {
                    k[w] += carry; carry = k[w] < carry;
                }
            }
        }
        digits[i] = (int8_t)d;
        if (d) top = i + 1;
        for (int w = 0; w < 4; w++) k[w] = (k[w] >> 1) | (k[w + 1] << 63);
        k[4] >>= 1;
    }
    return top;
}

/* out = sum scalars[i] * points[i]; 0 if some point is not a valid encoding. */
int r255_msm(uint8_t out[32], const uint8_t *scalars, const uint8_t *points, size_t n) {
    cached(*tables)[TABLE] = malloc((n ? n : 1) * sizeof *tables);
    int8_t(*digits)[NAF_DIGITS] = malloc((n ? n : 1) * sizeof *digits);
    if (!tables || !digits) { free(tables); free(digits); return -1; }
    int top = 0, ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        ge p, p2, acc;
        if (!ge_decode_cached(&p, points + 32 * i)) { ok = 0; break; }
        ge_to_cached(&tables[i][0], &p);
        ge_double(&p2, &p, 1);
        cached c2;
        ge_to_cached(&c2, &p2);
        acc = p;
        for (int k = 1; k < TABLE; k++) {
            ge_add(&acc, &acc, &c2, 0);
            ge_to_cached(&tables[i][k], &acc);
        }
        int t = wnaf(digits[i], scalars + 32 * i);
        if (t > top) top = t;
    }
    if (ok) {
        ge acc;
        ge_identity(&acc);
        for (int j = top - 1; j >= 0; j--) {
            int adds = 0;
            for (size_t i = 0; i < n && !adds; i++) adds = digits[i][j] != 0;
            ge_double(&acc, &acc, adds || j == 0);
            for (size_t i = 0; i < n; i++) {
                int d = digits[i][j];
                if (d > 0) ge_add(&acc, &acc, &tables[i][d >> 1], 0);
                else if (d < 0) ge_add(&acc, &acc, &tables[i][(-d) >> 1], 1);
            }
        }
        ge_encode(out, &acc);
    }
    free(tables);
    free(digits);
    return ok;
}

/* ---- fixed base: 52 tables of j * 32^i * G, j = 1..16, signed radix-32 digits ---------- */

typedef struct { fe ypx, ymx, xy2d; } niels; /* y+x, y-x, 2dxy of an affine point (Z = 1) */

#define BASE_WINDOWS 52 /* 5 bits each: 255 bits and the last carry */
#define BASE_ENTRIES 16
static niels base_table[BASE_WINDOWS][BASE_ENTRIES];
static int base_ready = 0;

static const uint8_t BASE_ENCODING[32] = {
    0xe2, 0xf2, 0xae, 0x0a, 0x6a, 0xbc, 0x4e, 0x71, 0xa8, 0x84, 0xa9, 0x61, 0xc5, 0x00, 0x51, 0x5f,
    0x58, 0xe3, 0x0b, 0x6a, 0xa5, 0x82, 0xdd, 0x8d, 0xb6, 0xa6, 0x59, 0x45, 0xe0, 0x8d, 0x2d, 0x76};

/* 1/z = z^(p-2) = (z^((p-5)/8))^8 * z^3 */
static void fe_invert(fe *out, const fe *z) {
    fe t, z3;
    fe_pow22523(&t, z);
    fe_sqn(&t, &t, 3);
    fe_sq(&z3, z);
    fe_mul(&z3, &z3, z);
    fe_mul(out, &t, &z3);
}

static void ge_to_niels(niels *n, const ge *p) {
    fe zi, x, y;
    fe_invert(&zi, &p->Z);
    fe_mul(&x, &p->X, &zi);
    fe_mul(&y, &p->Y, &zi);
    fe_add(&n->ypx, &y, &x);
    fe_sub(&n->ymx, &y, &x);
    fe_mul(&n->xy2d, &x, &y);
    fe_mul(&n->xy2d, &n->xy2d, &FE_D2);
}

/* r = p + q (negate: p - q) for an affine q: 7M */
static void ge_add_niels(ge *r, const ge *p, const niels *q, int negate) {
    fe a, b, c, d, e, f, g, h, t;
    fe_sub(&t, &p->Y, &p->X);
    fe_mul(&a, &t, negate ? &q->ypx : &q->ymx);
    fe_add(&t, &p->Y, &p->X);
    fe_mul(&b, &t, negate ? &q->ymx : &q->ypx);
    fe_mul(&c, &p->T, &q->xy2d);
    if (negate) fe_neg(&c, &c);
    fe_add(&d, &p->Z, &p->Z);
    fe_sub(&e, &b, &a);
    fe_sub(&f, &d, &c);
    fe_add(&g, &d, &c);
    fe_add(&h, &b, &a);
    fe_mul(&r->X, &e, &f);
    fe_mul(&r->Y, &g, &h);
    fe_mul(&r->T, &e, &h);
    fe_mul(&r->Z, &f, &g);
}

static int base_init(void) {
    ge g, acc;
    cached cg;
    if (!ge_decode(&g, BASE_ENCODING)) return 0;
    for (int i = 0; i < BASE_WINDOWS; i++) {
        ge_to_cached(&cg, &g);
        acc = g;
        ge_to_niels(&base_table[i][0], &acc);
        for (int j = 1; j < BASE_ENTRIES; j++) {
            ge_add(&acc, &acc, &cg, 0);
            ge_to_niels(&base_table[i][j], &acc);
        }
        for (int k = 0; k < 5; k++) ge_double(&g, &g, 1); /* 32^(i+1) * G */
    }
    base_ready = 1;
    return 1;
}

/* out[i] = scalars[i] * G for n scalars below 2^255; 0 if one is not (or no table). */
int r255_mul_base(uint8_t *out, const uint8_t *scalars, size_t n) {
    if (!base_ready && !base_init()) return 0;
    for (size_t m = 0; m < n; m++) {
        const uint8_t *s = scalars + 32 * m;
        if (s[31] & 0x80) return 0;
        int e[BASE_WINDOWS];
        for (int i = 0; i < BASE_WINDOWS; i++) { /* bits 5i .. 5i+4 */
            int bit = 5 * i, v = 0;
            for (int b = 0; b < 5 && bit + b < 256; b++)
                v |= ((s[(bit + b) >> 3] >> ((bit + b) & 7)) & 1) << b;
            e[i] = v;
        }
        int carry = 0;
        for (int i = 0; i < BASE_WINDOWS - 1; i++) {
            e[i] += carry;
            carry = (e[i] + 16) >> 5;
            e[i] -= carry << 5; /* -16 .. 15 */
        }
        e[BASE_WINDOWS - 1] += carry; /* 0 or 1: bits 255.. are clear */
        ge acc;
        ge_identity(&acc);
        for (int i = 0; i < BASE_WINDOWS; i++) {
            if (e[i] > 0) ge_add_niels(&acc, &acc, &base_table[i][e[i] - 1], 0);
            else if (e[i] < 0) ge_add_niels(&acc, &acc, &base_table[i][-e[i] - 1], 1);
        }
        ge_encode(out + 32 * m, &acc);
    }
    return 1;
}

/* 1 if p is a canonical encoding of a group element (the identity included). */
int r255_is_valid(const uint8_t p[32]) {
    ge q;
    return ge_decode_cached(&q, p);
}

/* 1 if each of the n encodings is a canonical, non-identity group element. */
int r255_all_points(const uint8_t *points, size_t n) {
    static const uint8_t zero[32] = {0};
    for (size_t i = 0; i < n; i++) {
        if (memcmp(points + 32 * i, zero, 32) == 0 || !r255_is_valid(points + 32 * i)) return 0;
    }
    return 1;
}
