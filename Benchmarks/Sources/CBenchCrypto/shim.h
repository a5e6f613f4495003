#ifndef WEBAPPLAUNCH_BENCH_CRYPTO_H
#define WEBAPPLAUNCH_BENCH_CRYPTO_H

// OpenSSL for the benchmarks' raw floor: a keyed HMAC-SHA256 EVP_MAC_CTX reused for every
// MAC (re-initialised with EVP_MAC_init(ctx, NULL, 0, NULL), which keeps the key), and
// HKDF-SHA256 to derive the token MAC key from the keyring secret exactly as SPEC.md 2.2.

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

/// A new HMAC-SHA256 context keyed with `key`, or NULL.
static inline EVP_MAC_CTX *bench_hmac_sha256_new(const unsigned char *key, size_t key_len) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (ctx == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_init(ctx, key, key_len, params) != 1) { EVP_MAC_CTX_free(ctx); return NULL; }
    return ctx;
}

/// HMAC of `message` with an already keyed context (the key is kept). Returns 1 on success.
static inline int bench_hmac_sha256(EVP_MAC_CTX *ctx, const unsigned char *message, size_t message_len, unsigned char out[32]) {
    size_t written = 0;
    return EVP_MAC_init(ctx, NULL, 0, NULL) == 1
        && EVP_MAC_update(ctx, message, message_len) == 1
        && EVP_MAC_final(ctx, out, &written, 32) == 1
        && written == 32;
}

/// HKDF-SHA256, empty salt. Returns 1 on success.
static inline int bench_hkdf_sha256(const unsigned char *ikm, size_t ikm_len, const unsigned char *info, size_t info_len, unsigned char *out, size_t out_len) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *kctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (kctx == NULL) return 0;
    char digest[] = "SHA256";
    OSSL_PARAM params[4];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    params[3] = OSSL_PARAM_construct_end();
    int rc = EVP_KDF_derive(kctx, out, out_len, params);
    EVP_KDF_CTX_free(kctx);
    return rc;
}

#endif
