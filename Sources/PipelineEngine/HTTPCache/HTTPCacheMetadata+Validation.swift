import Foundation
import WarmerSupport

/// Validators: conditional requests, If-Range, and freshening on a 304.
extension HTTPCacheMetadata {
    // MARK: Validation (RFC 9111 §4.3)

    /// Whether the entry has a validator to revalidate with: an ETag (strong or
    /// weak) or a Last-Modified.
    var hasValidator: Bool {
        etag != nil || lastModified != nil
    }

    /// The header fields of a conditional request: `If-None-Match: <etag>` when
    /// there is an ETag and `If-Modified-Since: <last-modified>` when there is
    /// a Last-Modified — both when both exist (RFC 9111 §4.3.1; the origin
    /// gives If-None-Match precedence, RFC 9110 §13.2.2). Names as sent on the
    /// wire; empty when there is no validator.
    var conditionalRequestHeaders: [String: String] {
        var fields: [String: String] = [:]
        if let etag { fields["If-None-Match"] = etag }
        if let lastModified { fields["If-Modified-Since"] = lastModified }
        return fields
    }

    /// The strong validator a range request may put in `If-Range` (RFC 9110
    /// §13.1.5) for a response with these header fields: a strong ETag; else
    /// Last-Modified when it is strong, i.e. `Date` is at least 1 s later
    /// (RFC 9110 §8.8.2.2); else nil. A weak ETag (`W/`) never qualifies, and
    /// neither does a Last-Modified when the response has a weak ETag (RFC 9110
    /// §13.1.5 allows a date only when there is no entity tag).
    ///
    /// Without a `Date`, Last-Modified is returned anyway: an origin with a
    /// clock must send `Date` (RFC 9110 §6.6.1), so its absence means an origin
    /// without one, whose recipient is told to take the time of receipt as
    /// `Date` — and that is later than Last-Modified for any response not
    /// modified during its own delivery. The residual risk (a change in the
    /// same second as the download) is the one every Last-Modified validation
    /// takes. A `Date` that is present but invalid proves nothing, so it gives nil.
    static func ifRangeValidator(headers: [String: String]) -> String? {
        let headers = lowercasingNames(headers)
        if let etag = value(headers["etag"]) { return isWeak(etag) ? nil : etag }
        guard let lastModified = value(headers["last-modified"]),
              let lastModifiedDate = HTTPDate.parse(lastModified)
        else { return nil }
        guard let date = value(headers["date"]) else { return lastModified }
        guard let dateDate = HTTPDate.parse(date), dateDate.timeIntervalSince(lastModifiedDate) >= 1 else { return nil }
        return lastModified
    }

    /// The validator to key derived variants with: the ETag, else
    /// `"lm:" + Last-Modified`, else nil.
    var variantValidator: String? {
        etag ?? lastModified.map { "lm:" + $0 }
    }

    /// Freshens the entry with a 304 (RFC 9111 §4.3.4): a copy whose ETag,
    /// Last-Modified, Cache-Control, Expires, Date, Age and Vary are replaced
    /// by those the 304 carries, with the new request and response times.
    ///
    /// Two fields describe the message itself rather than the representation,
    /// so they are never kept from the old response: a 304 without `Date` gets
    /// `responseTime` as its Date (RFC 9110 §6.6.1), and one without `Age` has
    /// none (it comes from the origin, age 0). Keeping the old ones would age
    /// the freshened entry from the *first* download and make it stale at once.
    ///
    /// nil when the 304 is about another representation (the caller
    /// re-downloads): it carries an ETag that does not match the stored one —
    /// strong comparison for a strong ETag, weak comparison for a weak one —
    /// or no ETag but a Last-Modified different from the stored one.
    func refreshed(with notModifiedHeaders: [String: String], requestTime: Date, responseTime: Date) -> HTTPCacheMetadata? {
        let new = Self.lowercasingNames(notModifiedHeaders)
        let newETag = Self.value(new["etag"]), newLastModified = Self.value(new["last-modified"])
        if let newETag {
            guard let etag, Self.isWeak(newETag) ? Self.opaqueTag(etag) == Self.opaqueTag(newETag)
                                                  : !Self.isWeak(etag) && etag == newETag
            else { return nil }
        } else if let newLastModified, let lastModified, !sameDate(newLastModified, lastModified) {
            return nil
        }
        return HTTPCacheMetadata(
            url: url, statusCode: statusCode, requestTime: requestTime, responseTime: responseTime,
            etag: newETag ?? etag, lastModified: newLastModified ?? lastModified,
            cacheControl: Self.value(new["cache-control"]) ?? cacheControl,
            expires: Self.value(new["expires"]) ?? expires,
            date: Self.value(new["date"]) ?? HTTPDate.format(responseTime),
            age: Self.value(new["age"]),
            vary: Self.value(new["vary"]) ?? vary,
            contentType: contentType, contentLength: contentLength, varyRequestHeaders: varyRequestHeaders
        )
    }

    /// Whether two Last-Modified values name the same instant (compared as
    /// text when either is not a valid date).
    private func sameDate(_ first: String, _ second: String) -> Bool {
        guard let firstDate = parseDate(first), let secondDate = parseDate(second) else { return first == second }
        return firstDate == secondDate
    }

    /// Whether an entity tag is weak (`W/"…"`).
    private static func isWeak(_ etag: String) -> Bool {
        etag.hasPrefix("W/") || etag.hasPrefix("w/")
    }

    /// An entity tag without its weakness indicator, for weak comparison.
    private static func opaqueTag(_ etag: String) -> Substring {
        isWeak(etag) ? etag.dropFirst(2) : etag[...]
    }
}
