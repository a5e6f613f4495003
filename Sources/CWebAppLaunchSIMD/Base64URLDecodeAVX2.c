#include "CWebAppLaunchSIMD.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/// One block: classify each character by range (signed compares, so bytes of 0x80 and
/// above fall in no range), add the range's offset to get its six bits, then pack four
/// sextets into three bytes (Muła and Lemire's multiply-add packing) and store 32 bytes,
/// of which the first 24 are the block's.
__attribute__((target("avx2")))
static size_t decode_avx2(const uint8_t *text, size_t blocks, uint8_t *output, int *invalid) {
    const __m256i zero = _mm256_setzero_si256();
    __m256i bad = zero;
    for (size_t block = 0; block < blocks; block++) {
        const __m256i c = _mm256_loadu_si256((const __m256i *)(text + 32 * block));
        const __m256i upper = _mm256_and_si256(_mm256_cmpgt_epi8(c, _mm256_set1_epi8('A' - 1)),
                                               _mm256_cmpgt_epi8(_mm256_set1_epi8('Z' + 1), c));
        const __m256i lower = _mm256_and_si256(_mm256_cmpgt_epi8(c, _mm256_set1_epi8('a' - 1)),
                                               _mm256_cmpgt_epi8(_mm256_set1_epi8('z' + 1), c));
        const __m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(c, _mm256_set1_epi8('0' - 1)),
                                               _mm256_cmpgt_epi8(_mm256_set1_epi8('9' + 1), c));
        const __m256i minus = _mm256_cmpeq_epi8(c, _mm256_set1_epi8('-'));
        const __m256i underscore = _mm256_cmpeq_epi8(c, _mm256_set1_epi8('_'));
        // 'A'..'Z' → 0..25, 'a'..'z' → 26..51, '0'..'9' → 52..61, '-' → 62, '_' → 63.
        const __m256i offset = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(upper, _mm256_set1_epi8(0 - 'A')),
                            _mm256_and_si256(lower, _mm256_set1_epi8(26 - 'a'))),
            _mm256_or_si256(_mm256_and_si256(digit, _mm256_set1_epi8(52 - '0')),
                            _mm256_or_si256(_mm256_and_si256(minus, _mm256_set1_epi8(62 - '-')),
                                            _mm256_and_si256(underscore, _mm256_set1_epi8(63 - '_')))));
        const __m256i valid = _mm256_or_si256(_mm256_or_si256(upper, lower),
                                              _mm256_or_si256(digit, _mm256_or_si256(minus, underscore)));
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi8(valid, zero));
        const __m256i sextets = _mm256_add_epi8(c, offset);
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

size_t webapplaunch_base64url_decode_blocks(const uint8_t *text, size_t text_count,
                                            uint8_t *output, size_t output_capacity, int *invalid) {
    *invalid = 0;
    if (!__builtin_cpu_supports("avx2") || output_capacity < 32) return 0;
    size_t blocks = text_count / 32;
    // Block i stores output[24 i ..< 24 i + 32].
    const size_t fitting = (output_capacity - 32) / 24 + 1;
    if (blocks > fitting) blocks = fitting;
    return decode_avx2(text, blocks, output, invalid);
}

#else

size_t webapplaunch_base64url_decode_blocks(const uint8_t *text, size_t text_count,
                                            uint8_t *output, size_t output_capacity, int *invalid) {
    (void)text; (void)text_count; (void)output; (void)output_capacity;
    *invalid = 0;
    return 0;
}

#endif
