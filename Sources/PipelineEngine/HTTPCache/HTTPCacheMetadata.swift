import Foundation
import WarmerSupport

/// What the disk cache stores beside an entry's data so that it can follow the
/// HTTP caching rules of a shared cache (RFC 9111): the response's status,
/// its caching-related header fields as received, and when it was requested
/// and received.
///
/// It lives as JSON in a sidecar file `<sha256 of key>.meta` next to the data
/// file; other programs read it, so the JSON is a documented format (see
/// docs/http-cache-metadata.md): snake_case keys, dates as seconds since 1970,
/// absent header fields omitted, and `"v": 1`.
///
/// Header field dictionaries passed in are expected with lowercased names; the
/// names are lowercased again anyway, so a mixed-case dictionary cannot hide
/// `Authorization` or a `Vary` header. Stored values are trimmed; an empty
/// value counts as absent. Unparseable dates count as absent, except `Expires`,
/// which then means "already expired" (RFC 9111 §5.3).
public struct HTTPCacheMetadata: Sendable, Hashable, Codable {
    /// The URL the response was loaded from.
    public let url: String
    /// The response's status code: 200 or 203 for entries this type creates.
    public let statusCode: Int
    /// When the request was sent: `request_time` of RFC 9111 §4.2.3.
    public let requestTime: Date
    /// When the response was received: `response_time` of RFC 9111 §4.2.3.
    public let responseTime: Date
    /// `ETag`, as received (quotes and any `W/` included).
    public let etag: String?
    /// `Last-Modified`, as received.
    public let lastModified: String?
    /// `Cache-Control`, as received.
    public let cacheControl: String?
    /// `Expires`, as received.
    public let expires: String?
    /// `Date`, as received.
    public let date: String?
    /// `Age`, as received.
    public let age: String?
    /// `Vary`, as received.
    public let vary: String?
    /// `Content-Type`, as received.
    public let contentType: String?
    /// `Content-Length`, when it was a valid non-negative number.
    public let contentLength: Int64?
    /// The request's values of the header fields `vary` names, keyed by
    /// lowercased name, trimmed and with whitespace runs collapsed; `""` for a
    /// field the request did not carry.
    public let varyRequestHeaders: [String: String]

    /// The version of the JSON format `encoded()` writes and `decode(_:)` reads.
    static let formatVersion = 1

    /// An entry with the given fields, as they are.
    init(
        url: String, statusCode: Int, requestTime: Date, responseTime: Date,
        etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, expires: String? = nil,
        date: String? = nil, age: String? = nil, vary: String? = nil, contentType: String? = nil,
        contentLength: Int64? = nil, varyRequestHeaders: [String: String] = [:]
    ) {
        self.url = url
        self.statusCode = statusCode
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.expires = expires
        self.date = date
        self.age = age
        self.vary = vary
        self.contentType = contentType
        self.contentLength = contentLength
        self.varyRequestHeaders = varyRequestHeaders
    }

    /// The metadata to store for a response; nil when a shared cache must not
    /// store it (RFC 9111 §3, §3.5):
    /// - the status is not 200 or 203 (we only keep full bodies);
    /// - `Cache-Control` has `no-store` or `private` (qualified `private="…"`
    ///   included), in the response, or `no-store` in the request;
    /// - `Vary: *`;
    /// - the request carried `Authorization` and the response has none of
    ///   `public`, `s-maxage`, `must-revalidate`.
    init?(
        storing statusCode: Int, headers: [String: String], url: String, requestHeaders: [String: String],
        requestTime: Date, responseTime: Date
    ) {
        let headers = Self.lowercasingNames(headers), requestHeaders = Self.lowercasingNames(requestHeaders)
        guard statusCode == 200 || statusCode == 203 else { return nil }
        let directives = CacheControl(headers["cache-control"])
        guard !directives.noStore, !directives.isPrivate,
              !CacheControl(requestHeaders["cache-control"]).noStore
        else { return nil }
        let varyNames = Self.fieldNames(headers["vary"])
        guard !varyNames.contains("*") else { return nil }
        if requestHeaders["authorization"] != nil {
            guard directives.isPublic || directives.sMaxAge != nil || directives.mustRevalidate else { return nil }
        }

        var varyValues: [String: String] = [:]
        for name in varyNames { varyValues[name] = Self.normalizedValue(requestHeaders[name]) }
        self.init(
            url: url, statusCode: statusCode, requestTime: requestTime, responseTime: responseTime,
            etag: Self.value(headers["etag"]), lastModified: Self.value(headers["last-modified"]),
            cacheControl: Self.value(headers["cache-control"]), expires: Self.value(headers["expires"]),
            date: Self.value(headers["date"]), age: Self.value(headers["age"]), vary: Self.value(headers["vary"]),
            contentType: Self.value(headers["content-type"]),
            contentLength: Self.value(headers["content-length"]).flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil },
            varyRequestHeaders: varyValues
        )
    }

    /// The parsed `Cache-Control` directives.
    public var cacheControlDirectives: CacheControl {
        CacheControl(cacheControl)
    }

    // MARK: Freshness (RFC 9111 §4.2)

    /// The freshness lifetime, in seconds (RFC 9111 §4.2.1): `s-maxage`, else
    /// `max-age`, else `Expires − Date` (an invalid `Expires` gives 0; a missing
    /// or invalid `Date` counts as `responseTime`), else a heuristic (§4.2.2):
    /// 10 % of `Date − Last-Modified`, at most `heuristicLimit`; else 0.
    /// Never negative.
    func freshnessLifetime(heuristicLimit: TimeInterval = 86_400) -> TimeInterval {
        let directives = cacheControlDirectives
        if let sMaxAge = directives.sMaxAge { return TimeInterval(sMaxAge) }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        if let expires {
            guard let expiresDate = parseDate(expires) else { return 0 }
            return max(0, expiresDate.timeIntervalSince(dateValue))
        }
        if let lastModified, let lastModifiedDate = parseDate(lastModified) {
            return min(max(0, dateValue.timeIntervalSince(lastModifiedDate) / 10), max(0, heuristicLimit))
        }
        return 0
    }

    /// The age of the response at `now`, in seconds (RFC 9111 §4.2.3):
    /// `corrected_initial_age + resident_time`, where
    /// - apparent_age = max(0, response_time − date_value),
    /// - response_delay = response_time − request_time,
    /// - corrected_age_value = age_value + response_delay,
    /// - corrected_initial_age = max(apparent_age, corrected_age_value),
    /// - resident_time = now − response_time.
    ///
    /// An invalid `Age` is ignored (§5.1); a missing or invalid `Date` counts as
    /// `responseTime`. Negative intervals (clocks going backwards: a response
    /// before its request, `now` before the response) count as 0.
    func currentAge(at now: Date) -> TimeInterval {
        let ageValue = age.flatMap(CacheControl.deltaSeconds).map(TimeInterval.init) ?? 0
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether the entry can be used at `now` without contacting the origin:
    /// not `no-cache`, and `currentAge < freshnessLifetime`.
    ///
    /// `must-revalidate` and `proxy-revalidate` only matter once the entry is
    /// stale, and stale entries are always revalidated by us anyway.
    func isFresh(at now: Date, heuristicLimit: TimeInterval = 86_400) -> Bool {
        !cacheControlDirectives.noCache && currentAge(at: now) < freshnessLifetime(heuristicLimit: heuristicLimit)
    }

    /// `Date` as a date; `responseTime` when missing or invalid (RFC 9110 §6.6.1:
    /// a recipient records the time of receipt for a response without one).
    private var dateValue: Date {
        date.flatMap(parseDate) ?? responseTime
    }

    /// Parses a stored HTTP-date, resolving two-digit years against `responseTime`.
    func parseDate(_ text: String) -> Date? {
        HTTPDate.parse(text, relativeTo: responseTime)
    }

    // MARK: Vary (RFC 9111 §4.1)

    /// Whether this entry was stored for the same variant as a request with
    /// `requestHeaders`: every field `vary` names has the value recorded in
    /// `varyRequestHeaders` (after trimming and collapsing whitespace; an
    /// absent field equals an empty one). Never for `Vary: *`, nor when `vary`
    /// names a field that was not recorded (a 304 changed `Vary`).
    func matchesVary(requestHeaders: [String: String]) -> Bool {
        let names = Self.fieldNames(vary)
        guard !names.contains("*") else { return false }
        let requestHeaders = Self.lowercasingNames(requestHeaders)
        return names.allSatisfy { name in
            guard let stored = varyRequestHeaders[name] else { return false }
            return Self.normalizedValue(stored) == Self.normalizedValue(requestHeaders[name])
        }
    }

    // MARK: Header values

    /// `fields` with names lowercased (on a clash, either value is kept).
    static func lowercasingNames(_ fields: [String: String]) -> [String: String] {
        if fields.keys.allSatisfy({ $0 == $0.lowercased() }) { return fields }
        return Dictionary(fields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// A header value without surrounding whitespace; nil when absent or empty.
    static func value(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// The lowercased field names in a list such as a `Vary` value.
    private static func fieldNames(_ list: String?) -> [String] {
        guard let list else { return [] }
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }

    /// A value as Vary compares it: trimmed, whitespace runs collapsed to one
    /// space, `""` when absent.
    private static func normalizedValue(_ raw: String?) -> String {
        guard let raw else { return "" }
        return raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    // MARK: JSON

    /// The JSON keys: a documented format (docs/http-cache-metadata.md).
    enum CodingKeys: String, CodingKey {
        case version = "v"
        case url
        case statusCode = "status_code"
        case requestTime = "request_time"
        case responseTime = "response_time"
        case etag
        case lastModified = "last_modified"
        case cacheControl = "cache_control"
        case expires
        case date
        case age
        case vary
        case contentType = "content_type"
        case contentLength = "content_length"
        case varyRequestHeaders = "vary_request_headers"
    }

    /// Reads the JSON format; fails for another version than `formatVersion`,
    /// a missing required field, or a time outside the years 0–9999.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.formatVersion else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: "unknown version \(version)")
        }
        /// A date stored as seconds since 1970, within the years 0–9999.
        func time(_ key: CodingKeys) throws -> Date {
            let seconds = try container.decode(Double.self, forKey: key)
            guard (-62_167_219_200..<253_402_300_800).contains(seconds) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "time out of range")
            }
            return Date(timeIntervalSince1970: seconds)
        }
        self.init(
            url: try container.decode(String.self, forKey: .url),
            statusCode: try container.decode(Int.self, forKey: .statusCode),
            requestTime: try time(.requestTime), responseTime: try time(.responseTime),
            etag: try container.decodeIfPresent(String.self, forKey: .etag),
            lastModified: try container.decodeIfPresent(String.self, forKey: .lastModified),
            cacheControl: try container.decodeIfPresent(String.self, forKey: .cacheControl),
            expires: try container.decodeIfPresent(String.self, forKey: .expires),
            date: try container.decodeIfPresent(String.self, forKey: .date),
            age: try container.decodeIfPresent(String.self, forKey: .age),
            vary: try container.decodeIfPresent(String.self, forKey: .vary),
            contentType: try container.decodeIfPresent(String.self, forKey: .contentType),
            contentLength: try container.decodeIfPresent(Int64.self, forKey: .contentLength),
            varyRequestHeaders: try container.decodeIfPresent([String: String].self, forKey: .varyRequestHeaders) ?? [:]
        )
    }

    /// Writes the JSON format: dates as seconds since 1970 (whatever the
    /// encoder's date strategy), absent fields omitted.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .version)
        try container.encode(url, forKey: .url)
        try container.encode(statusCode, forKey: .statusCode)
        try container.encode(requestTime.timeIntervalSince1970, forKey: .requestTime)
        try container.encode(responseTime.timeIntervalSince1970, forKey: .responseTime)
        try container.encodeIfPresent(etag, forKey: .etag)
        try container.encodeIfPresent(lastModified, forKey: .lastModified)
        try container.encodeIfPresent(cacheControl, forKey: .cacheControl)
        try container.encodeIfPresent(expires, forKey: .expires)
        try container.encodeIfPresent(date, forKey: .date)
        try container.encodeIfPresent(age, forKey: .age)
        try container.encodeIfPresent(vary, forKey: .vary)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(contentLength, forKey: .contentLength)
        try container.encode(varyRequestHeaders, forKey: .varyRequestHeaders)
    }

    /// The sidecar file's contents: JSON with sorted keys, no pretty printing.
    /// Empty only if a time is not finite (which no clock produces); `decode`
    /// rejects that.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads a sidecar file's contents; nil for malformed data or an unknown `"v"`.
    static func decode(_ data: Data) -> HTTPCacheMetadata? {
        try? JSONDecoder().decode(HTTPCacheMetadata.self, from: data)
    }
}
