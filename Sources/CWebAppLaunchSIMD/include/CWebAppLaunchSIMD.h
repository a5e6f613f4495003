#ifndef CWEBAPPLAUNCH_SIMD_H
#define CWEBAPPLAUNCH_SIMD_H

#include <stddef.h>
#include <stdint.h>

/// Decodes the leading whole blocks of base64url text (RFC 4648 §5 alphabet) with vector
/// instructions, when this CPU has them: 64 characters become 48 bytes per step with
/// AVX-512 VBMI, then 32 become 24 with AVX2.
///
/// Swift cannot choose vector instructions per function (a package is built for the
/// baseline x86-64, SSE2), so this one kernel is C with a `target("avx2")` attribute and a
/// run-time CPU check. It decodes only what the scalar Swift decoder would decode the same
/// way (whole quads, any alphabet character); the caller decodes the rest, including the
/// strict tail.
///
/// @param text The characters.
/// @param text_count How many characters `text` holds.
/// @param output Where the bytes go; each block's store writes a whole vector (64 or 32
///        bytes), so only blocks whose store fits in `output_capacity` are decoded.
/// @param output_capacity The bytes writable at `output`.
/// @param invalid Set to 1 if a decoded block holds a byte outside the alphabet (the
///        output is then meaningless), else 0.
/// @return The characters consumed: a multiple of 32; 0 without AVX2 or on other CPUs.
size_t webapplaunch_base64url_decode_blocks(const uint8_t *text, size_t text_count,
                                            uint8_t *output, size_t output_capacity, int *invalid);

/// Encodes the leading whole 24-byte blocks of `bytes` as base64url text with AVX2, when
/// this CPU has it: 24 bytes become 32 characters per step (Muła's multiply-shift unpacking
/// and a lookup of each range's offset). The caller encodes the rest, including the
/// unpadded tail.
///
/// @param bytes The bytes to encode.
/// @param count How many bytes `bytes` holds. A block reads 4 bytes past its own 24, so
///        only blocks followed by at least 4 more bytes are encoded.
/// @param text Where the characters go: 32 per block.
/// @return The bytes consumed: a multiple of 24; 0 without AVX2 or on other CPUs.
size_t webapplaunch_base64url_encode_blocks(const uint8_t *bytes, size_t count, uint8_t *text);

/// Whether the base64url kernels use vector instructions (AVX2 at least) on this CPU (for tests that
/// must know they exercised it).
int webapplaunch_base64url_vectorised(void);

#endif
