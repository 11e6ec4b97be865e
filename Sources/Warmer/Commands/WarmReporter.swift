import ArgumentParser
import Foundation
import PipelineEngine
import Scheduler
import WarmerInput

/// Prints the progress of `warmer warm`.
final class WarmReporter {
    let total: Int
    let isTerminal: Bool
    private(set) var completed = 0
    private(set) var failed = 0
    private var bytes = 0

    init(total: Int, isTerminal: Bool) {
        self.total = total
        self.isTerminal = isTerminal
    }

    func report(url: String, result: Result<ImageResponse, WarmFailure>) {
        switch result {
        case .success(let response):
            completed += 1
            bytes += response.byteCount
            if !isTerminal { Console.write("ok \(response.source.rawValue) \(response.byteCount) \(URLCredentials.masked(url))\n") }
        case .failure(let error):
            failed += 1
            let line = URLCredentials.masked("failed \(error.code) \(url): \(error.description)")
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        if isTerminal {
            Console.write("\r\u{1B}[2K\(completed + failed)/\(total)  done \(completed)  failed \(failed)")
        }
    }

    func finish(elapsed: Duration, cacheDirectory: URL) {
        if isTerminal { Console.write("\n") }
        let seconds = elapsed.seconds
        Console.write(String(format: "warmed %d of %d URLs (%d failed, %.1f MB) in %.2fs into %@\n",
                             completed, total, failed, Double(bytes) / 1_000_000, seconds, cacheDirectory.path))
    }
}
