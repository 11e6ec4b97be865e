import Testing
import TestSupport
@testable import Scheduler

/// Passwords in URLs are masked in any text Warmer publishes or logs.
@Suite("URL credentials")
struct URLCredentialsTests {
    @Test(arguments: Self.cases)
    func masksThePasswordOrALoneUserName(text: String, expected: String) {
        #expect(URLCredentials.masked(text) == expected)
    }

    /// The queue's scripts publish events through the same rule, in Lua.
    @Test(arguments: Self.cases)
    func theQueueScriptsMaskAlike(text: String, expected: String) async throws {
        let client = try makeClient()
        let script = QueueScript(LuaFile("masked", "-- @include context masking\nreturn masked(ARGV[FIRST])")).script.source
        let reply = try await client.send(["EVAL", script, "0", "p:", "1", "1", "1", "1", "1", "1", "1", "0", "", "0", text])
        #expect(reply == .string(expected))
    }

    static let cases: [(String, String)] = [
        ("http://user:secret@host/a.jpg", "http://user:***@host/a.jpg"),
        ("https://user:secret@host:8443/a.jpg?x=1#f", "https://user:***@host:8443/a.jpg?x=1#f"),
        ("http://token@host/a.jpg", "http://***@host/a.jpg"),
        ("http://user:@host/", "http://user:***@host/"),
        ("http://user:p@ss:w@rd@host/a", "http://user:***@host/a"),
        ("http://user:secret@host", "http://user:***@host"),
        ("http://user:secret@host?q=a@b", "http://user:***@host?q=a@b"),
        ("Not an http(s) URL: ftp://u:secret@h/x (curl error 1)", "Not an http(s) URL: ftp://u:***@h/x (curl error 1)"),
        (#"{"urls":["http://a:one@h/1","http://b:two@h/2"]}"#, #"{"urls":["http://a:***@h/1","http://b:***@h/2"]}"#),
        ("http://host/a@b.jpg", "http://host/a@b.jpg"),
        ("http://host/path?mail=a@b.c", "http://host/path?mail=a@b.c"),
        ("mail alice@example.com about http://host/x", "mail alice@example.com about http://host/x"),
        ("http://user:***@host/", "http://user:***@host/"),
        ("no url here", "no url here"),
        ("://user:secret@host", "://user:***@host"),
        (#"{"urls":["http:\/\/a:one@h\/1"]}"#, #"{"urls":["http:\/\/a:***@h\/1"]}"#),
        ("", ""),
        // Issue 23, V1: a password holding a byte that is not allowed in a URL
        // but that a download sends anyway, and malformed slashes.
        ("http://user:p'Secret4@host/x.jpg", "http://user:***@host/x.jpg"),
        (#"http://u:p"w<>\ s@host/x"#, "http://u:***@host/x"),
        ("http:/user:pw@host/x", "http:/user:***@host/x"),
        ("http:///user:pw@host/x", "http:///user:***@host/x"),
        (#"{"url":"http:\/\/u:p\"w@h\/x"}"#, #"{"url":"http:\/\/u:***@h\/x"}"#),
        ("http://host http://u:pw@h/x", "http://host http://u:***@h/x"),
        ("http://a:b@h http://u:pw@h2/x", "http://a:***@h http://u:***@h2/x"),
        ("fetch http://u:pw@host", "fetch http://u:***@host"),
        // A URL with no slash at all, which curl reads as http://user:pw@host.
        ("http:user:pw@host", "http:user:***@host"),
        ("HTTPS:user:pw@host/x", "HTTPS:user:***@host/x"),
        ("fetch (http:token@host) failed", "fetch (http:***@host) failed"),
        (#"{"url":"https:u:p\"w@h"}"#, #"{"url":"https:u:***@h"}"#),
        // Not an http(s) scheme of its own: left as it is.
        ("xhttp:user:pw@host", "xhttp:user:pw@host"),
        ("note: alice@example.com", "note: alice@example.com"),
    ]
}
