import Foundation
import Testing
import TestSupport

/// Issue 23: the dashboard's Content-Security-Policy in real Chromium
/// (scripts/dashboard-frame-check.py, the browser setup of
/// DashboardBrowserTests): the page runs under it with no violation, and
/// a page of another origin cannot frame it (`frame-ancestors 'none'`).
/// Without a browser the test is cancelled with the reason, as
/// DashboardBrowserTests is, and fails on CI.
@Suite(.serialized)
struct DashboardSecurityPolicyTests {
    @Test func theDashboardRunsUnderItsPolicyAndCannotBeFramed() async throws {
        try await DashboardBrowserTests.requireBrowser()
        let queue = try QueueProbe()
        try await withServe(queue: queue) { server in
            let run = try await ScriptRun.python("scripts/dashboard-frame-check.py", ["http://127.0.0.1:\(server.port)"],
                                                 timeout: .seconds(300))
            #expect(run.status == 0, "scripts/dashboard-frame-check.py exited \(run.status):\n\(run.output)")
            #expect(run.output.contains("ok - a page of another origin cannot frame the dashboard"), "\(run.output)")
            let page = try await server.request("GET", "/", token: nil)
            #expect(page.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true, "\(page.headers)")
        }
    }
}
