// OpenSSL's libcrypto for Swift: only its message digests (EVP_Digest*),
// for SHA-1 and SHA-256, and its initialisation (OPENSSL_init_crypto).
// Only Sources/DigestKit uses this module.
#ifndef WARMER_CCRYPTO_SHIM_H
#define WARMER_CCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>

#endif
