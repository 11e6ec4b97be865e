import HTTPTypes

extension HTTPField.Name {
    /// `Last-Event-ID`: where a reconnecting Server-Sent Events client resumes.
    static var lastEventID: Self { Self("Last-Event-ID")! }
}
