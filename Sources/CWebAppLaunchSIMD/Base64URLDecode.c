#include "CWebAppLaunchSIMD.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/// One block (Muła and Lemire's AVX2 decoder, with base64url's alphabet): each character's
/// low and high nibble look up two bit sets whose intersection is empty exactly for the 64
/// characters of the alphabet (a byte of 0x80 or above has a high nibble no valid character
/// has); the high nibble (8 added for '_', the one character whose offset differs from the
/// rest of its nibble) looks up the offset that turns the character into its six bits. Then
/// the sextets are packed four into three bytes with multiply-adds and 32 bytes are stored,
/// of which the first 24 are the block's.
__attribute__((target("avx2")))
static size_t decode_avx2(const uint8_t *text, size_t blocks, uint8_t *output, int *invalid) {
    // The bit of each high nibble h: bit 0 for 0x0-0x1, bit h - 1 for 0x2-0x7, bit 7 for 0x8-0xF.
    const __m256i high_sets = _mm256_setr_epi8(
        0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, -128, -128, -128, -128, -128, -128, -128, -128,
        0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, -128, -128, -128, -128, -128, -128, -128, -128);
    // For each low nibble, the high nibbles it is no character of the alphabet with:
    // 0x2 but for '-' (D), 0x3 past '9', '@' and '`' (0), 0x5 past 'Z' but for '_' (F), 0x7
    // past 'z', and always 0x0-0x1 and 0x8-0xF.
    const __m256i low_sets = _mm256_setr_epi8(
        -85, -125, -125, -125, -125, -125, -125, -125, -125, -125, -121, -41, -41, -43, -41, -57,
        -85, -125, -125, -125, -125, -125, -125, -125, -125, -125, -121, -41, -41, -43, -41, -57);
    // Offset by high nibble: '-' +17, '0'..'9' +4, 'A'..'Z' -65, 'a'..'z' -71; '_' (index
    // 0x5 + 8) -32.
    const __m256i offsets = _mm256_setr_epi8(
        0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, -32, 0, 0,
        0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, -32, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i bad = _mm256_setzero_si256();
    for (size_t block = 0; block < blocks; block++) {
        const __m256i c = _mm256_loadu_si256((const __m256i *)(text + 32 * block));
        const __m256i high = _mm256_and_si256(_mm256_srli_epi32(c, 4), nibble);
        const __m256i low = _mm256_and_si256(c, nibble);
        bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_shuffle_epi8(low_sets, low), _mm256_shuffle_epi8(high_sets, high)));
        const __m256i underscore = _mm256_and_si256(_mm256_cmpeq_epi8(c, _mm256_set1_epi8('_')), _mm256_set1_epi8(8));
        const __m256i sextets = _mm256_add_epi8(c, _mm256_shuffle_epi8(offsets, _mm256_or_si256(high, underscore)));
        // Per 16 bits: first * 64 + second; per 32 bits: (first pair) * 4096 + second pair.
        const __m256i pairs = _mm256_maddubs_epi16(sextets, _mm256_set1_epi32(0x01400140));
        const __m256i triples = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00011000));
        // Each 32-bit lane holds its three bytes little-endian: bytes 2, 1, 0 in order.
        const __m256i packed = _mm256_shuffle_epi8(triples, _mm256_setr_epi8(
            2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
            2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
        const __m256i joined = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
        _mm256_storeu_si256((__m256i *)(output + 24 * block), joined);
    }
    *invalid = !_mm256_testz_si256(bad, bad);
    return 32 * blocks;
}

/// Each of the 128 ASCII bytes' sextet, or 0x80 outside the alphabet: the two 64-byte
/// halves one AVX-512 VBMI permute looks 64 characters up in at once.
static const uint8_t sextet_table[128] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 62,   0x80, 0x80,
    52,   53,   54,   55,   56,   57,   58,   59,   60,   61,   0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,
    15,   16,   17,   18,   19,   20,   21,   22,   23,   24,   25,   0x80, 0x80, 0x80, 0x80, 63,
    0x80, 26,   27,   28,   29,   30,   31,   32,   33,   34,   35,   36,   37,   38,   39,   40,
    41,   42,   43,   44,   45,   46,   47,   48,   49,   50,   51,   0x80, 0x80, 0x80, 0x80, 0x80,
};

/// For output byte j of a 64-character block (48 bytes), where it lies after the
/// multiply-add packing: lane j / 3, byte 2 - j % 3 of that lane.
static const uint8_t pack_table[64] = {
    2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, 18, 17, 16, 22, 21, 20, 26, 25, 24, 30, 29, 28,
    34, 33, 32, 38, 37, 36, 42, 41, 40, 46, 45, 44, 50, 49, 48, 54, 53, 52, 58, 57, 56, 62, 61, 60,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/// 64 characters per step (Muła and Lemire's AVX-512 VBMI decoder): one two-table permute
/// turns each character into its sextet, or a byte with the high bit set for anything
/// outside the alphabet (a character of 0x80 or above is caught by its own high bit); the
/// same multiply-add packing as the AVX2 kernel; one permute gathers the 48 bytes; a 64-byte
/// store, of which the first 48 are the block's.
__attribute__((target("avx512f,avx512bw,avx512vbmi")))
static size_t decode_avx512vbmi(const uint8_t *text, size_t blocks, uint8_t *output, int *invalid) {
    const __m512i low_half = _mm512_loadu_si512((const void *)sextet_table);
    const __m512i high_half = _mm512_loadu_si512((const void *)(sextet_table + 64));
    const __m512i pack = _mm512_loadu_si512((const void *)pack_table);
    __m512i bad = _mm512_setzero_si512();
    for (size_t block = 0; block < blocks; block++) {
        const __m512i c = _mm512_loadu_si512((const void *)(text + 64 * block));
        const __m512i sextets = _mm512_permutex2var_epi8(low_half, c, high_half);
        bad = _mm512_or_si512(bad, _mm512_or_si512(sextets, c));
        const __m512i pairs = _mm512_maddubs_epi16(sextets, _mm512_set1_epi32(0x01400140));
        const __m512i triples = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x00011000));
        _mm512_storeu_si512((void *)(output + 48 * block), _mm512_permutexvar_epi8(pack, triples));
    }
    *invalid = _mm512_movepi8_mask(bad) != 0;
    return 64 * blocks;
}

size_t webapplaunch_base64url_decode_blocks(const uint8_t *text, size_t text_count,
                                            uint8_t *output, size_t output_capacity, int *invalid) {
    *invalid = 0;
    size_t consumed = 0, written = 0;
    if (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw") && output_capacity >= 64) {
        size_t blocks = text_count / 64;
        // Block i stores output[48 i ..< 48 i + 64].
        const size_t fitting = (output_capacity - 64) / 48 + 1;
        if (blocks > fitting) blocks = fitting;
        consumed = decode_avx512vbmi(text, blocks, output, invalid);
        written = consumed / 4 * 3;
        if (*invalid) return consumed;
    }
    if (!__builtin_cpu_supports("avx2") || output_capacity - written < 32) return consumed;
    size_t blocks = (text_count - consumed) / 32;
    // Block i stores output[24 i ..< 24 i + 32].
    const size_t fitting = (output_capacity - written - 32) / 24 + 1;
    if (blocks > fitting) blocks = fitting;
    return consumed + decode_avx2(text + consumed, blocks, output + written, invalid);
}

#else

size_t webapplaunch_base64url_decode_blocks(const uint8_t *text, size_t text_count,
                                            uint8_t *output, size_t output_capacity, int *invalid) {
    (void)text; (void)text_count; (void)output; (void)output_capacity;
    *invalid = 0;
    return 0;
}

#endif
