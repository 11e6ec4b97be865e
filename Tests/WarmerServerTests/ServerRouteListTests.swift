import Testing
@testable import WarmerServer

/// The router's own list of routes, which the contract test compares with
/// docs/openapi.yaml, in the form that document writes paths.
@Suite struct ServerRouteListTests {
    @Test func pathParametersAreWrittenInBraces() throws {
        let routes = try APIServer.routeList()
        #expect(routes.contains("GET /v1/queues/{queue}/batches/{batch}"))
        #expect(!routes.contains { $0.contains(":") })
    }
}
