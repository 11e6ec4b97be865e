/// A subscription to a task of any value type: what a dependent task holds.
struct AnySubscription: Sendable {
    let setPriority: @Sendable (ImagePriority) -> Void
    let unsubscribe: @Sendable () -> Void
}
