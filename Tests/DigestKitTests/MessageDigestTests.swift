import DigestKit
import Foundation
import Testing
import WarmerSupport

/// libcrypto's digests through the wrapper, against the known answers of
/// FIPS 180-4's examples and of the empty message.
@Suite("Message digests")
struct MessageDigestTests {
    @Test func sha256GivesTheKnownAnswers() {
        #expect(MessageDigest.sha256(Data("abc".utf8)).hexString
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(MessageDigest.sha256(Data()).hexString
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(MessageDigest.sha256(Data(twoBlocks.utf8)).hexString
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha1GivesTheKnownAnswersRedisNamesScriptsBy() {
        #expect(MessageDigest.sha1(Data("abc".utf8)).hexString == "a9993e364706816aba3e25717850c26c9cd0d89d")
        // What `SCRIPT LOAD "return 1"` answers.
        #expect(MessageDigest.sha1(Data("return 1".utf8)).hexString == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
    }

    @Test func piecesHashLikeTheWhole() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var digest = MessageDigest(.sha256)
        for start in stride(from: 0, to: bytes.count, by: 777) {
            digest.update(bytes[start..<min(start + 777, bytes.count)])
        }
        digest.update([UInt8]()) // an empty piece changes nothing
        #expect(digest.finalize() == MessageDigest.sha256(bytes))
    }

    @Test func discontiguousDataIsHashedRegionByRegion() {
        // DispatchData made of two regions: both are hashed, in order.
        let first = Data("hello ".utf8), second = Data("world".utf8)
        var data = DispatchData.empty
        first.withUnsafeBytes { data.append($0) }
        second.withUnsafeBytes { data.append($0) }
        #expect(data.regions.count == 2)
        #expect(MessageDigest.sha256(data) == MessageDigest.sha256(Data("hello world".utf8)))
    }
}
