#include "CWebAppLaunchSIMD.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/// One block: 12 bytes into each 128-bit lane, each 3-byte group spread over a 32-bit lane
/// (bytes b, a, c, b), the four sextets cut out with multiplies (Muła), then each sextet
/// moved into the alphabet by its range's offset: 0..25 +65 ('A'), 26..51 +71 ('a' - 26),
/// 52..61 -4 ('0' - 52), 62 -17 ('-'), 63 +32 ('_').
__attribute__((target("avx2")))
static size_t encode_avx2(const uint8_t *bytes, size_t blocks, uint8_t *text) {
    const __m256i spread = _mm256_set_epi8(
        10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1,
        10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1);
    const __m256i offsets = _mm256_setr_epi8(
        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 0, 0,
        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 0, 0);
    for (size_t block = 0; block < blocks; block++) {
        const uint8_t *source = bytes + 24 * block;
        const __m128i low = _mm_loadu_si128((const __m128i *)source);
        const __m128i high = _mm_loadu_si128((const __m128i *)(source + 12));
        const __m256i in = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1), spread);
        const __m256i t0 = _mm256_and_si256(in, _mm256_set1_epi32(0x0fc0fc00));
        const __m256i t1 = _mm256_mulhi_epu16(t0, _mm256_set1_epi32(0x04000040));
        const __m256i t2 = _mm256_and_si256(in, _mm256_set1_epi32(0x003f03f0));
        const __m256i t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x01000010));
        const __m256i sextets = _mm256_or_si256(t1, t3);
        // Range index: 0 for 0..25, 1 for 26..51, 2..11 for 52..61, 12 for 62, 13 for 63.
        __m256i range = _mm256_subs_epu8(sextets, _mm256_set1_epi8(51));
        range = _mm256_sub_epi8(range, _mm256_cmpgt_epi8(sextets, _mm256_set1_epi8(25)));
        const __m256i characters = _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range));
        _mm256_storeu_si256((__m256i *)(text + 32 * block), characters);
    }
    return 24 * blocks;
}

size_t webapplaunch_base64url_encode_blocks(const uint8_t *bytes, size_t count, uint8_t *text) {
    if (!__builtin_cpu_supports("avx2") || count < 28) return 0;
    // Block i reads bytes[24 i ..< 24 i + 28].
    return encode_avx2(bytes, (count - 4) / 24, text);
}

#else

size_t webapplaunch_base64url_encode_blocks(const uint8_t *bytes, size_t count, uint8_t *text) {
    (void)bytes; (void)count; (void)text;
    return 0;
}

#endif
