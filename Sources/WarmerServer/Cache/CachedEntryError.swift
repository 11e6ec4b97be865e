/// A cache file that could not be read to the end while answering.
struct CachedEntryError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "reading the cache file failed (errno \(errno))" }
}
