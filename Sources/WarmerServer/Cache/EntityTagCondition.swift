import Foundation

/// `If-None-Match` (RFC 9110, section 13.1.2): whether a request's list of
/// entity tags matches the current one, by weak comparison (`W/"x"` matches
/// `"x"`), `*` matching any current entity.
enum EntityTagCondition {
    /// Whether `header` (`*` or a comma-separated list of entity tags) names `etag`.
    static func matches(_ header: String, etag: String) -> Bool {
        let current = opaque(etag)
        for member in header.split(separator: ",") {
            let tag = member.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if !tag.isEmpty, opaque(tag) == current { return true }
        }
        return false
    }

    /// The opaque tag, without a weakness prefix.
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]
    }
}
