#ifndef WEBAPPLAUNCH_COPENSSL_SHIM_H
#define WEBAPPLAUNCH_COPENSSL_SHIM_H

// The only C this package touches: OpenSSL 3 libcrypto headers, plus static inline
// helpers that build OSSL_PARAM arrays on the C stack (building them from Swift
// easily leaves dangling pointers).

#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
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

#endif
