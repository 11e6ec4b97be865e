import CCrypto

extension MessageDigest {
    /// Tells libcrypto not to free its state when the process exits
    /// (`OPENSSL_INIT_NO_ATEXIT`); the system reclaims it anyway.
    ///
    /// By default libcrypto registers an `atexit` handler that frees its
    /// library context. A process that exits while another of its threads
    /// still hashes (a worker stopping at once, with a task computing a
    /// cache file's name) then crashes in that thread, reading a lock the
    /// handler freed: a worker refused its HTTP port crashed this way at
    /// exit (signal 11 in `pthread_rwlock_rdlock`, libcrypto's "SHA256"
    /// name table in a register).
    ///
    /// The first initialisation of libcrypto decides, so call this before
    /// any other: before libcurl's global initialisation and the first
    /// digest. Later calls do nothing.
    package static func keepLibraryUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
