import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Bounds how long a request may take to arrive, and never waits for the
/// rest of a body the server has already answered (docs/http-api.md,
/// "Security", issue 23 V3).
///
/// - **The deadline.** From the moment a connection waits for a request
///   (it opened, or the previous answer ended), the request's headers *and*
///   body must have arrived within `timeout` (`request-timeout`). A client
///   trickling a byte a second never gets past it: a request still arriving
///   is answered `408 request_timeout` and the connection closed; an idle
///   connection, or one whose answer is already under way, is just closed.
///   Answers take as long as they need (event streams stay open).
/// - **Early answers close.** An answer that ends while its request's body
///   is still arriving (a 401, 403 or 413 refused before the body was read)
///   carries `Connection: close`, and the connection is closed once it is
///   sent, instead of reading and discarding the rest of the body.
///
/// One instance per connection, on its event loop, between the HTTP codec
/// and Hummingbird's connection handler.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Requests whose head arrived and whose answer has not ended.
    private var unanswered = 0
    /// Whether the newest request's head arrived but not its end.
    private var isReadingRequest = false
    /// Whether an answer's head went out and not yet its end.
    private var isResponding = false
    /// Whether the connection closes once the current answer ends.
    private var closesAfterAnswer = false
    /// Whether the deadline passed and the 408 went out: nothing more is read or written.
    private var timedOut = false

    init(timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        self.timeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !timedOut else { return }
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            isReadingRequest = true
            // A pipelined request arriving behind one being answered starts its own deadline.
            if deadline == nil { arm(context) }
        case .body:
            break
        case .end:
            isReadingRequest = false
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !timedOut else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head):
            isResponding = true
            // The request answered is the oldest one; is its body still arriving?
            if unanswered == 1, isReadingRequest {
                closesAfterAnswer = true
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            isResponding = false
            unanswered = max(0, unanswered - 1)
            if closesAfterAnswer {
                disarm()
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.cascade(to: promise)
                context.writeAndFlush(data, promise: written)
                written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
            if unanswered == 0, deadline == nil { arm(context) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            deadline = nil
            deadlinePassed(context)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }

    /// The request did not arrive in time: a 408 if nothing was answered
    /// yet, then the connection closes.
    private func deadlinePassed(_ context: ChannelHandlerContext) {
        guard isReadingRequest, !isResponding, unanswered == 1 else {
            context.close(promise: nil)
            return
        }
        let problem = Problem.requestTimeout(seconds: timeout.nanoseconds / 1_000_000_000)
        let body = problem.document(instance: nil)
        var fields = problem.responseHeaders
        fields[.connection] = "close"
        fields[.contentLength] = String(body.readableBytes)
        timedOut = true
        context.write(wrapOutboundOut(.head(HTTPResponse(status: problem.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
