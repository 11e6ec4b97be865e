import Foundation
import WarmerInput

/// What intake-document validation must do with any bytes: never crash;
/// accept only documents within every documented bound; and — with
/// Foundation's strict JSON parser as an independent reference — decode
/// every text Foundation takes for JSON to the same values (cjson takes
/// more than strict JSON, never less, short of its nesting limit).
///
/// That the verdicts and messages are Redis's own is checked against a real
/// Redis by `IntakeDocumentDifferentialTests`, on the same corpus.
public enum IntakeDocumentProperty {
    /// The violation for `input`, or nil.
    public static func violation(for input: [UInt8]) -> String? {
        if let problem = foundationDisagreement(input) { return problem }
        guard let document = try? IntakeDocument(parsing: input) else { return nil }
        return boundsProblem(document)
    }

    /// A valid document's fields within the documented bounds.
    private static func boundsProblem(_ document: IntakeDocument) -> String? {
        guard (1...IntakeDocument.maxURLCount).contains(document.urls.count) else { return "\(document.urls.count) URLs" }
        if let url = document.urls.first(where: { $0.isEmpty }) { return "an empty URL: \(url)" }
        if let batch = document.batch, !(1...IntakeDocument.maxBatchLength).contains(batch.utf8.count)
            || !batch.utf8.allSatisfy({ $0 < 0x80 && ($0 == 0x2E || $0 == 0x2D || $0 == 0x5F || Character(Unicode.Scalar($0)).isLetter
                || Character(Unicode.Scalar($0)).isNumber) }) {
            return "batch \(batch.debugDescription)"
        }
        if let priority = document.priority, !IntakeDocument.priorities.contains(priority) { return "priority \(priority)" }
        if let destination = document.destination, !["disk", "processed"].contains(destination) {
            return "destination \(destination)"
        }
        if let total = document.total, !(document.urls.count...IntakeDocument.maxTotal).contains(total) { return "total \(total)" }
        if let timeout = document.timeout, !(1...IntakeDocument.maxTimeout).contains(timeout) { return "timeout \(timeout)" }
        return nil
    }

    /// Where Foundation and `CJSONDecoder` disagree on `input`, or nil.
    /// What Foundation takes beyond strict UTF-8 JSON is skipped: texts it
    /// would read as UTF-16/32 (a NUL byte, a byte-order mark) and trailing
    /// commas; and as Foundation drops a byte-order mark that starts a
    /// string, strings are compared without their leading ones.
    private static func foundationDisagreement(_ input: [UInt8]) -> String? {
        guard !input.contains(0), !input.starts(with: [0xEF, 0xBB, 0xBF]), !input.starts(with: [0xFE, 0xFF]),
              !input.starts(with: [0xFF, 0xFE]), !hasTrailingComma(input),
              let reference = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
        else { return nil }
        let value: CJSONValue
        do {
            value = try CJSONDecoder.decode(input)
        } catch {
            return "Foundation reads JSON, cjson refuses it: \(error)"
        }
        return difference(value, reference, at: "$")
    }

    /// Whether a `,` is followed by `]` or `}` (whitespace between), outside strings.
    private static func hasTrailingComma(_ input: [UInt8]) -> Bool {
        var inString = false, escaped = false, afterComma = false
        for byte in input {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; afterComma = false
            case UInt8(ascii: ","): afterComma = true
            case UInt8(ascii: "]"), UInt8(ascii: "}"): if afterComma { return true }
            case 0x20, 0x09, 0x0A, 0x0D: break
            default: afterComma = false
            }
        }
        return false
    }

    /// The first place where `value` and Foundation's `reference` differ.
    private static func difference(_ value: CJSONValue, _ reference: Any, at path: String) -> String? {
        switch value {
        case .string(let bytes):
            guard let text = reference as? String else { return "\(path): a string, Foundation has \(type(of: reference))" }
            return comparable(Array(text.utf8)) == comparable(bytes) ? nil : "\(path): string \(bytes) vs \(Array(text.utf8))"
        case .number, .boolean:
            return reference is NSNumber || reference is Bool || reference is Int || reference is Double
                ? nil : "\(path): a scalar, Foundation has \(type(of: reference))"
        case .null:
            return reference is NSNull ? nil : "\(path): null, Foundation has \(type(of: reference))"
        case .array(let elements):
            guard let references = reference as? [Any], references.count == elements.count else {
                return "\(path): an array of \(elements.count), Foundation has \(type(of: reference))"
            }
            for (index, element) in elements.enumerated() {
                if let problem = difference(element, references[index], at: "\(path)[\(index)]") { return problem }
            }
            return nil
        case .object(let fields):
            guard let references = reference as? [String: Any] else { return "\(path): an object, Foundation has \(type(of: reference))" }
            let keyed = Dictionary(fields.map { (comparable($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            // Keys that differ only by BOMs cannot be told apart: nothing to compare.
            guard keyed.count == fields.count else { return nil }
            guard Set(references.keys.map { comparable(Array($0.utf8)) }) == Set(keyed.keys) else { return "\(path): keys differ" }
            for (key, reference) in references {
                guard let field = keyed[comparable(Array(key.utf8))] else { return "\(path): no key \(key.debugDescription)" }
                if let problem = difference(field, reference, at: "\(path).\(key)") { return problem }
            }
            return nil
        }
    }

    /// A string's bytes as compared with Foundation's: without byte order
    /// marks (EF BB BF). Foundation drops one from a string that starts
    /// with it raw, and one that follows an escape sequence (`"u\ud83d\ude00`
    /// then a raw BOM reads as `u😀`; Fuzz/Crashers/intake-document has the
    /// input): the oracle cannot tell where BOMs were, so they are not compared.
    private static func comparable(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]) {
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}
