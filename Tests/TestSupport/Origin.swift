import Foundation
import VipsKit

/// The nginx origin: real image files generated with libvips, their URLs, and
/// how often nginx served them.
public enum Origin {
    /// An image format the origin can serve.
    public enum Format: String, Sendable, CaseIterable {
        case jpeg = "jpg", png, webp
    }

    /// Generates a real image with libvips into the origin's folder (grey
    /// noise, cut from a `NoiseCanvas`) and returns its file. Noise content keeps files large (about 0.7 bytes
    /// per pixel as JPEG), so `/slow/` downloads take a while: nginx sends the
    /// first ~100 KB at once, then 100 KB a second.
    @discardableResult
    public static func makeImage(
        _ name: String, width: Int = 320, height: Int = 240, format: Format = .jpeg
    ) throws -> URL {
        let root = try TestEnvironment.originRoot()
        let file = root.appendingPathComponent("\(name).\(format.rawValue)")
        try NoiseCanvas.image(width: width, height: height, grey: true)
            .write(toFile: file.path + (format == .jpeg ? "[Q=90]" : ""))
        return file
    }

    /// Writes arbitrary bytes (e.g. a truncated image) into the origin's folder.
    @discardableResult
    public static func makeFile(_ name: String, contents: Data) throws -> URL {
        let file = try TestEnvironment.originRoot().appendingPathComponent(name)
        try contents.write(to: file)
        return file
    }

    /// The URL of `file` on the origin; through the 100 KB/s location when `slow`.
    public static func url(of file: URL, slow: Bool = false) throws -> URL {
        try url(path: file.lastPathComponent, slow: slow)
    }

    /// The URL of `path` (relative to the origin's root).
    public static func url(path: String, slow: Bool = false) throws -> URL {
        try TestEnvironment.originURL().appendingPathComponent((slow ? "slow/" : "") + path)
    }

    /// How many GET requests for `path` nginx has logged (any status).
    public static func requestCount(path: String, slow: Bool = false) throws -> Int {
        let uri = "/" + (slow ? "slow/" : "") + path
        let log = try String(contentsOf: TestEnvironment.originLog(), encoding: .utf8)
        return log.split(separator: "\n").filter { $0.hasPrefix("GET \(uri) ") }.count
    }

    /// The (status, body bytes sent) of each GET request for `path` nginx has logged.
    public static func loggedRequests(path: String, slow: Bool = false) throws -> [(status: Int, bytes: Int)] {
        let uri = "/" + (slow ? "slow/" : "") + path
        let log = try String(contentsOf: TestEnvironment.originLog(), encoding: .utf8)
        return log.split(separator: "\n").filter { $0.hasPrefix("GET \(uri) ") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 4, let status = Int(fields[2]), let bytes = Int(fields[3]) else { return nil }
            return (status, bytes)
        }
    }

    /// The file names among `urls` in the order nginx logged their requests
    /// (nginx logs a request when it ends).
    public static func loggedOrder(of urls: [URL]) throws -> [String] {
        let names = Set(urls.map { $0.lastPathComponent })
        let log = try String(contentsOf: TestEnvironment.originLog(), encoding: .utf8)
        return log.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count >= 2 else { return nil }
            let name = String(fields[1].split(separator: "/").last ?? "")
            return names.contains(name) ? name : nil
        }
    }
}
