import HTTPTypes

/// Header fields the server names that swift-http-types does not. Each
/// literal is a valid field name, which is all `init?(_:)` checks, so the
/// unwraps cannot fail.
extension HTTPField.Name {
    /// `Last-Event-ID`: where a reconnecting Server-Sent Events client resumes.
    static var lastEventID: Self { Self("Last-Event-ID")! }
    /// `X-Accel-Buffering: no` keeps nginx (and proxies that follow it) from buffering an event stream.
    static var accelBuffering: Self { Self("X-Accel-Buffering")! }
    /// `X-Content-Type-Options: nosniff`: browsers take the declared content type.
    static var contentTypeOptions: Self { Self("X-Content-Type-Options")! }
    /// `X-Frame-Options: DENY`: no page may frame the dashboard (older browsers; CSP's `frame-ancestors` for the rest).
    static var xFrameOptions: Self { Self("X-Frame-Options")! }
    /// `Referrer-Policy: no-referrer`: the dashboard's address never leaves with a request.
    static var referrerPolicy: Self { Self("Referrer-Policy")! }
}
