import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// The SSRF guard: which addresses a download may reach.
@Suite("AddressPolicy")
struct AddressPolicyTests {
    @Test(arguments: [
        "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
        "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "::127.0.0.1",
    ])
    func refusesSpecialAddressesByDefault(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(!AddressPolicy().permits(address, host: "images.example"))
    }

    @Test(arguments: ["8.8.8.8", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
    func allowsPublicAddresses(_ text: String) throws {
        #expect(AddressPolicy().permits(try #require(IPAddress(text)), host: "images.example"))
    }

    @Test func allowListsOpenTheirHostsAndNetworksOnly() throws {
        var policy = AddressPolicy()
        policy.allowedHosts = ["origin.internal"]
        policy.allowedNetworks = [try #require(IPNetwork("10.20.0.0/16"))]
        let inside = try #require(IPAddress("10.20.3.4")), other = try #require(IPAddress("10.21.0.1"))
        #expect(policy.permits(other, host: "ORIGIN.internal"))
        #expect(policy.permits(inside, host: "anything.example"))
        #expect(!policy.permits(other, host: "anything.example"))
        policy.allowsPrivateNetworks = true
        #expect(policy.permits(other, host: "anything.example"))
    }

    @Test func parsesAndPrintsAddresses() throws {
        #expect(IPAddress("1.2.3.4")?.bytes == [1, 2, 3, 4])
        #expect(IPAddress("::ffff:1.2.3.4")?.bytes == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4])
        #expect(IPAddress("2001:db8::1")?.description == "2001:db8:0:0:0:0:0:1")
        for bad in ["1.2.3", "1.2.3.256", "1::2::3", "12345::", "example.com", ""] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(IPNetwork("10.0.0.0/33") == nil)
    }

    @Test(arguments: ["", "/", "//", "/8", "1.2.3.4/", "1.2.3.4/-1", "1.2.3.4/+8"])
    func refusesNetworksWithoutAnAddressOrALength(_ text: String) {
        // "" and "/" once trapped (`--allow-network ''` killed the worker at start).
        #expect(IPNetwork(text) == nil)
    }

    // MARK: Against the origin

    @Test func theDefaultLoaderRefusesALoopbackOriginWithoutConnecting() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("ssrf-default"))
        await #expect(throws: DataLoaderError.addressRefused("127.0.0.1")) {
            try await DataLoader().data(from: try Origin.url(of: file))
        }
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 0)
    }

    @Test(arguments: [("loopback", "127.0.0.1"), ("metadata", "169.254.169.254")])
    func aRedirectIntoThePrivateNetworkIsRefused(_ target: String, _ address: String) async throws {
        // Given: a loader that allows only the host name `localhost` (the
        // origin, reached by name), and a redirect to a bare private address.
        let file = try Origin.makeImage(TestEnvironment.uniqueName("ssrf-redirect"))
        var configuration = DataLoader.Configuration()
        configuration.addressPolicy.allowedHosts = ["localhost"]
        let port = try #require(TestEnvironment.originURL().port)
        let path = target == "loopback" ? "redirect/loopback/\(file.lastPathComponent)" : "redirect/metadata"
        let url = try #require(URL(string: "http://localhost:\(port)/\(path)"))
        // Then: the redirect is not followed to that address.
        await #expect(throws: DataLoaderError.addressRefused(address)) {
            try await DataLoader(configuration: configuration).data(from: url)
        }
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 0)
    }
}
