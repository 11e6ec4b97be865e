import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection as soon as its client hangs up while an event
/// stream is being sent to it, so that the stream ends at once and gives
/// its place back (docs/http-api.md, "Security", issue 23 V5).
///
/// Hummingbird allows half-closed connections: a client that closed its
/// end after its request (a browser tab closed, curl stopped) is told apart
/// from one still waiting only when a write to it fails. An ordinary answer
/// is written at once, so it is written as usual. An event stream writes
/// only when events come or a keep-alive is due (up to `event-keep-alive`,
/// 25 s), and holds its place under `max-event-streams` and its
/// subscription meanwhile. Its clients never half-close on purpose (an
/// EventSource sends nothing after its request), so for them the end of the
/// input is the end of the connection: this handler closes it, and the
/// stream's body, which watches the connection's `closeFuture`
/// (`ServerContext.connectionClosed`), ends.
///
/// One instance per connection, on its event loop, between the HTTP codec
/// and Hummingbird's connection handler.
final class EventStreamHangupHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Whether an event stream's head went out and not yet its end.
    private var isSendingEventStream = false
    /// Whether the client closed its end.
    private var inputClosed = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            if isSendingEventStream {
                context.close(promise: nil)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            isSendingEventStream = head.headerFields[.contentType]?.hasPrefix("text/event-stream") == true
            if isSendingEventStream, inputClosed {
                // The client left before its stream began.
                promise?.fail(ChannelError.outputClosed)
                context.close(promise: nil)
                return
            }
        case .body:
            break
        case .end:
            isSendingEventStream = false
        }
        context.write(data, promise: promise)
    }
}
