#ifndef WEBAPPLAUNCH_COPENSSL_SHIM_H
#define WEBAPPLAUNCH_COPENSSL_SHIM_H

// The only C this package touches: OpenSSL 3 libcrypto headers, plus static inline
// helpers that build OSSL_PARAM arrays on the C stack (building them from Swift
// easily leaves dangling pointers).

// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP_Digest*, but they
// are the only way to hold a SHA-256 state by value (see webapplaunch_hmac_sha256_pads_*).
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <string.h>

/// Fetches the HMAC algorithm once; the caller frees it with EVP_MAC_free.
static inline EVP_MAC *webapplaunch_fetch_hmac(void) {
    return EVP_MAC_fetch(NULL, "HMAC", NULL);
}

/// Keys an HMAC context for SHA-256. Returns 1 on success.
static inline int webapplaunch_hmac_sha256_init(EVP_MAC_CTX *ctx, const unsigned char *key, size_t key_len) {
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    return EVP_MAC_init(ctx, key, key_len, params);
}

/// HKDF-SHA256 (extract and expand, RFC 5869) through EVP_KDF. Returns 1 on success.
static inline int webapplaunch_hkdf_sha256(
    const unsigned char *ikm, size_t ikm_len,
    const unsigned char *salt, size_t salt_len,
    const unsigned char *info, size_t info_len,
    unsigned char *out, size_t out_len
) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *kctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (kctx == NULL) return 0;
    char digest[] = "SHA256";
    OSSL_PARAM params[5];
    int n = 0;
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
    if (salt_len > 0) {
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    }
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    params[n++] = OSSL_PARAM_construct_end();
    int rc = EVP_KDF_derive(kctx, out, out_len, params);
    EVP_KDF_CTX_free(kctx);
    return rc;
}

/// Sets the GCM IV length on a cipher context (a macro-style ctrl call in C).
static inline int webapplaunch_gcm_set_ivlen(EVP_CIPHER_CTX *ctx, int len) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, len, NULL);
}

/// Reads the GCM tag after EVP_EncryptFinal_ex.
static inline int webapplaunch_gcm_get_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int len) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, len, tag);
}

/// Sets the expected GCM tag before EVP_DecryptFinal_ex.
static inline int webapplaunch_gcm_set_tag(EVP_CIPHER_CTX *ctx, const unsigned char *tag, int len) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, len, (void *)tag);
}

/// HMAC-SHA256 with precomputed pad states (RFC 2104 §4): the SHA-256 states after the
/// key XOR ipad block and after the key XOR opad block, computed once per key. A MAC is then
/// two copies of a state by value and two short hashes: no EVP dispatch, no allocation,
/// no shared mutable state, so any number of threads may use one pair of states at once.
typedef struct {
    SHA256_CTX inner;
    SHA256_CTX outer;
} webapplaunch_hmac_sha256_pads;

/// Computes the pad states for a key of any length (a key longer than the 64-byte block
/// is hashed first, as RFC 2104 requires). Returns 1 on success.
static inline int webapplaunch_hmac_sha256_pads_init(
    webapplaunch_hmac_sha256_pads *pads, const unsigned char *key, size_t key_len
) {
    unsigned char block[SHA256_CBLOCK];
    unsigned char hashed[SHA256_DIGEST_LENGTH];
    memset(block, 0, sizeof block);
    if (key_len > SHA256_CBLOCK) {
        if (SHA256(key, key_len, hashed) == NULL) return 0;
        memcpy(block, hashed, sizeof hashed);
        OPENSSL_cleanse(hashed, sizeof hashed);
    } else if (key_len > 0) {
        memcpy(block, key, key_len);
    }
    for (size_t i = 0; i < sizeof block; i++) block[i] ^= 0x36;
    int ok = SHA256_Init(&pads->inner) && SHA256_Update(&pads->inner, block, sizeof block);
    for (size_t i = 0; i < sizeof block; i++) block[i] ^= 0x36 ^ 0x5c;
    ok = ok && SHA256_Init(&pads->outer) && SHA256_Update(&pads->outer, block, sizeof block);
    OPENSSL_cleanse(block, sizeof block);
    return ok ? 1 : 0;
}

/// Writes a SHA-256 state's eight words as the 32-byte big-endian digest.
static inline void webapplaunch_sha256_state_digest(const SHA256_CTX *ctx, unsigned char *out) {
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)ctx->h[i];
    }
}

/// HMAC-SHA256 of exactly 16 bytes (a launch nonce, for its replay id): each pad state
/// needs one more block, so this builds the two padded blocks (FIPS 180-4 §5.1.1: 0x80,
/// zeros, the length in bits of pad block plus message) and runs one compression on each,
/// without the buffering of SHA256_Update and SHA256_Final. Same function, bit for bit, as
/// webapplaunch_hmac_sha256_pads_mac on 16 bytes (the tests compare both with EVP_MAC).
static inline int webapplaunch_hmac_sha256_pads_mac16(
    const webapplaunch_hmac_sha256_pads *pads, const unsigned char *message, unsigned char *out
) {
    unsigned char block[SHA256_CBLOCK];
    SHA256_CTX ctx = pads->inner;
    memcpy(block, message, 16);
    block[16] = 0x80;
    memset(block + 17, 0, sizeof block - 17);
    block[62] = (unsigned char)(((64 + 16) * 8) >> 8);  /* 640 bits */
    block[63] = (unsigned char)((64 + 16) * 8);
    SHA256_Transform(&ctx, block);
    webapplaunch_sha256_state_digest(&ctx, block);
    block[32] = 0x80;
    memset(block + 33, 0, sizeof block - 33);
    block[62] = (unsigned char)(((64 + 32) * 8) >> 8);  /* 768 bits */
    block[63] = (unsigned char)((64 + 32) * 8);
    ctx = pads->outer;
    SHA256_Transform(&ctx, block);
    webapplaunch_sha256_state_digest(&ctx, out);
    OPENSSL_cleanse(&ctx, sizeof ctx);
    OPENSSL_cleanse(block, sizeof block);
    return 1;
}

/// HMAC-SHA256 of `message` under the key the pads were made from; writes 32 bytes to
/// `out`. The states are copied onto this stack frame and the copies cleansed afterwards.
static inline int webapplaunch_hmac_sha256_pads_mac(
    const webapplaunch_hmac_sha256_pads *pads,
    const unsigned char *message, size_t message_len,
    unsigned char *out
) {
    SHA256_CTX ctx = pads->inner;
    unsigned char inner[SHA256_DIGEST_LENGTH];
    int ok = SHA256_Update(&ctx, message, message_len) && SHA256_Final(inner, &ctx);
    ctx = pads->outer;
    ok = ok && SHA256_Update(&ctx, inner, sizeof inner) && SHA256_Final(out, &ctx);
    OPENSSL_cleanse(&ctx, sizeof ctx);
    OPENSSL_cleanse(inner, sizeof inner);
    return ok ? 1 : 0;
}

/// Re-arms a keyed GCM context with a fresh IV for encryption (enc = 1) or decryption
/// (enc = 0), keeping its key schedule. Returns 1 on success.
static inline int webapplaunch_gcm_rearm(EVP_CIPHER_CTX *ctx, const unsigned char *iv, int enc) {
    return EVP_CipherInit_ex2(ctx, NULL, NULL, iv, enc, NULL);
}

#endif
