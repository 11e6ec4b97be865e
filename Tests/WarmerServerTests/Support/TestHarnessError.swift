/// A test that could not be set up as it should.
struct TestHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
