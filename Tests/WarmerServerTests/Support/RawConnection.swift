import NIOCore
import NIOPosix

/// One TCP connection to a live in-process server on loopback, carrying
/// exactly the bytes a test writes (a `Host` of its choosing, a chunked
/// body), and reading the answer as it arrives.
struct RawConnection: Sendable {
    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Connects to `localhost:port`, where `InProcessServer.live` listens.
    init(port: Int) async throws {
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "localhost", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Writes `text`, then hands `read` the answer's bytes as they come,
    /// until `read` returns true or the server closes; closes the connection.
    /// Returns everything read.
    @discardableResult
    func exchange(_ text: String, until read: (String) async throws -> Bool = { _ in false }) async throws -> String {
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: text))
            var received = ""
            for try await chunk in inbound {
                received += String(buffer: chunk)
                if try await read(received) { break }
            }
            return received
        }
    }

    /// The status code of a raw HTTP/1.1 answer.
    static func status(of answer: String) -> Int? {
        answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }
}
