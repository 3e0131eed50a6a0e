/*
 * parse_shaped.h: the fast path of the NBT skip walker (parse_tmpl.h's
 * skip), included there once per encoding family that has fixed-width
 * numbers (Java big-endian, Bedrock little-endian). It is performance code,
 * kept apart from the parser so that the parser reads plainly.
 *
 * The one rule it keeps: it only steps over what the slow path would
 * accept. It never decides that bytes are valid; it recognises elements
 * that are byte for byte like one the generic walker has just accepted
 * (same tag types, same keys, every length inside the input, every string
 * plain where text is checked) and stops at the first element that is not,
 * or when too few bytes remain for its loads. What it has not stepped over
 * the generic walker walks, so a hostile input costs it nothing and cannot
 * be accepted by it alone.
 *
 * Where it pays: tick lists (LiquidTicks, block_ticks, fluid_ticks) are
 * thousands of compounds of one shape, {i, x, y, z, t, p}; comparing each
 * as a few masked words (SSE2 on x86-64, plain 64-bit words elsewhere) is
 * several times faster than walking its six tags.
 */
/* Lists of compounds that all have one flat shape (tick lists: thousands of
 * {i, x, y, z, t, p}) are stepped over by shape: element 0 is walked and,
 * if its children are numbers and strings with keys of at most 5 bytes,
 * recorded as up to 16 (header word, mask, value size) triples; each later
 * element then costs a masked 8-byte compare per child, or, with at most
 * one string, a few masked words in two runs (skip_two_runs). An element that
 * differs, or the last bytes of the input, end the fast path; the caller
 * walks the rest generically. Returns the elements consumed (*pp moved past
 * them); 0 when the shape does not qualify. */
#define P_SHAPE_MAX 16
/* skip_shaped's matcher for shapes with at most one string (tick lists:
 * {i, x, y, z, t, p}): an element is two runs of bytes, the children up to
 * the string's length and those after its contents up to the end tag, each
 * compared as masked words (headers must match, fixed values may be
 * anything) folded into one test, with no branch per child. `si` is the
 * string child (nk when there is none). Returns the elements consumed of
 * the n asked. */
#define P_RUN_WORDS 34 /* 16 children of at most 16 bytes and the end tag */
static size_t P_FN(skip_two_runs)(const uint8_t **pp, const uint8_t *end, uint32_t n, bool text,
                                  const uint64_t *word, const uint8_t *hlen, const int16_t *vsize, size_t nk,
                                  size_t si)
{
    uint8_t tb[2][8 * P_RUN_WORDS], tm[2][8 * P_RUN_WORDS];
    size_t rl[2] = {0, 0};
    memset(tb, 0, sizeof tb);
    memset(tm, 0, sizeof tm);
    for (size_t j = 0; j <= nk; j++) {
        const int r = j > si; /* the string's own header is run 0's last */
        if (j == nk) { /* the end tag */
            tb[r][rl[r]] = MC_NBT_END;
            tm[r][rl[r]++] = 0xFF;
            break;
        }
        for (size_t b = 0; b < hlen[j]; b++) {
            tb[r][rl[r] + b] = (uint8_t)(word[j] >> (8 * b));
            tm[r][rl[r] + b] = 0xFF;
        }
        rl[r] += hlen[j] + (vsize[j] < 0 ? 0u : (size_t)vsize[j]);
    }
    uint64_t w[2][P_RUN_WORDS], m[2][P_RUN_WORDS];
    size_t nw[2];
    for (int r = 0; r < 2; r++) {
        nw[r] = (rl[r] + 7) / 8;
        for (size_t i = 0; i < nw[r]; i++) {
            m[r][i] = mc_load_u64le(tm[r] + 8 * i);
            w[r][i] = mc_load_u64le(tb[r] + 8 * i);
        }
    }
    const bool has_str = si < nk;
    const size_t after = rl[1] + 8; /* bytes a string must leave: run 1 and the loads' slack */
    const size_t need = rl[0] + (has_str ? 2u : 0u) + after;
    const uint8_t *p = *pp;
    size_t done = 0;
#if P_SSE2
    if (has_str && nw[0] <= 4 && nw[1] <= 4) {
        /* Runs of up to 32 bytes (a tick: five ints and the string): each
         * run is two 16-byte loads, the masks and words held in registers,
         * so an element costs four loads beside its string length. Bytes
         * past a run are masked off (their loads stay inside the input: 32
         * bytes must follow the string). The length is read by a 32-bit
         * load ending at it (run 0 holds the string's header, >= 3 bytes):
         * each element's position hangs on the one before, and that load
         * and swap is the shortest step. */
        for (int r = 0; r < 2; r++)
            for (size_t i = nw[r]; i < 4; i++)
                m[r][i] = w[r][i] = 0;
        const __m128i m0a = _mm_loadu_si128((const __m128i *)(const void *)m[0]);
        const __m128i m0b = _mm_loadu_si128((const __m128i *)(const void *)(m[0] + 2));
        const __m128i w0a = _mm_loadu_si128((const __m128i *)(const void *)w[0]);
        const __m128i w0b = _mm_loadu_si128((const __m128i *)(const void *)(w[0] + 2));
        const __m128i m1a = _mm_loadu_si128((const __m128i *)(const void *)m[1]);
        const __m128i m1b = _mm_loadu_si128((const __m128i *)(const void *)(m[1] + 2));
        const __m128i w1a = _mm_loadu_si128((const __m128i *)(const void *)w[1]);
        const __m128i w1b = _mm_loadu_si128((const __m128i *)(const void *)(w[1] + 2));
        const size_t r0 = rl[0], r1 = rl[1], tail = 32; /* run 1 (r1 <= 32) and its loads */
        for (; done < n; done++) {
            const uint8_t *q = p;
            if ((size_t)(end - q) < r0 + 2 + tail)
                break;
            const size_t sl = P_LD16_PRE(q + r0);
            if (sl > (size_t)(end - q) - r0 - 2 - tail || (text && !P_PLAIN(q + r0 + 2, sl, end)))
                break;
            const uint8_t *q1 = q + r0 + 2 + sl;
            __m128i a = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)q), m0a), w0a);
            __m128i b = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(q + 16)), m0b), w0b);
            __m128i c = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)q1), m1a), w1a);
            __m128i d = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(q1 + 16)), m1b), w1b);
            __m128i e = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(e, _mm_setzero_si128())) != 0xFFFF)
                break;
            p = q1 + r1;
        }
    }
#endif
    for (; done < n; done++) {
        const uint8_t *q = p;
        if ((size_t)(end - q) < need)
            break;
        uint64_t d = 0;
        for (size_t i = 0; i < nw[0]; i++)
            d |= (mc_load_u64le(q + 8 * i) & m[0][i]) ^ w[0][i];
        q += rl[0];
        if (has_str) {
            const size_t sl = P_LD16(q);
            if (sl > (size_t)(end - q) - 2 - after || (text && !P_PLAIN(q + 2, sl, end)))
                break;
            q += 2 + sl;
        }
        for (size_t i = 0; i < nw[1]; i++)
            d |= (mc_load_u64le(q + 8 * i) & m[1][i]) ^ w[1][i];
        if (d)
            break;
        p = q + rl[1];
    }
    *pp = p;
    return done;
}
#undef P_RUN_WORDS

static size_t P_FN(skip_shaped)(const uint8_t **pp, const uint8_t *end, uint32_t n, bool text)
{
    uint64_t word[P_SHAPE_MAX], mask[P_SHAPE_MAX];
    uint8_t hlen[P_SHAPE_MAX];
    int16_t vsize[P_SHAPE_MAX]; /* -1: string */
    size_t nk = 0;
    const uint8_t *p = *pp;
    /* element 0: record */
    for (;;) {
        if ((size_t)(end - p) < 8)
            return 0;
        unsigned type = p[0];
        if (type == MC_NBT_END) {
            p++;
            break;
        }
        if (nk == P_SHAPE_MAX || (type > MC_NBT_DOUBLE && type != MC_NBT_STRING))
            return 0;
        size_t nlen = P_LD16(p + 1);
        if (nlen > 5 || (text && !P_PLAIN(p + 3, nlen, end)))
            return 0;
        hlen[nk] = (uint8_t)(3 + nlen);
        mask[nk] = hlen[nk] == 8 ? ~0ull : (1ull << (8 * hlen[nk])) - 1;
        word[nk] = mc_load_u64le(p) & mask[nk];
        p += hlen[nk];
        size_t left = (size_t)(end - p);
        if (type == MC_NBT_STRING) {
            if (left < 2 || (size_t)P_LD16(p) > left - 2 || (text && !P_PLAIN(p + 2, P_LD16(p), end)))
                return 0;
            vsize[nk] = -1;
            p += 2 + P_LD16(p);
        } else {
            if (left < P_FN(min_size)[type])
                return 0;
            vsize[nk] = (int16_t)P_FN(min_size)[type];
            p += P_FN(min_size)[type];
        }
        nk++;
    }
    size_t nstr = 0, si = nk;
    for (size_t j = 0; j < nk; j++)
        if (vsize[j] < 0)
            nstr++, si = j;
    if (nstr <= 1) {
        const size_t done = 1 + P_FN(skip_two_runs)(&p, end, n - 1, text, word, hlen, vsize, nk, si);
        *pp = p;
        return done;
    }
    /* tail[j]: the bytes child j and those after it take besides their
     * strings' contents (headers, fixed values, string lengths, the end
     * tag) plus 8 for the masked loads. An element is checked to have
     * tail[0] bytes once; then only each string's length needs a check
     * (it must leave tail[j + 1]), and no other child can run out. */
    size_t tail[P_SHAPE_MAX + 1];
    tail[nk] = 1 + 8;
    for (size_t j = nk; j-- > 0;)
        tail[j] = tail[j + 1] + hlen[j] + (vsize[j] < 0 ? 2u : (size_t)vsize[j]);
    size_t done = 1;
    /* the others, child by child */
    for (; done < n; done++) {
        const uint8_t *q = p;
        if ((size_t)(end - q) < tail[0])
            break;
        size_t j = 0;
        for (; j < nk; j++) {
            if ((mc_load_u64le(q) & mask[j]) != word[j])
                break;
            q += hlen[j];
            if (vsize[j] < 0) {
                const size_t sl = P_LD16(q);
                if (sl > (size_t)(end - q) - 2 - tail[j + 1] || (text && !P_PLAIN(q + 2, sl, end)))
                    break;
                q += 2 + sl;
            } else {
                q += vsize[j];
            }
        }
        if (j < nk || *q != MC_NBT_END)
            break;
        p = q + 1;
    }
    *pp = p;
    return done;
}
#undef P_SHAPE_MAX
