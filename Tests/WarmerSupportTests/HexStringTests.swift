import Testing
import WarmerSupport

@Suite struct HexStringTests {
    @Test func bytesBecomeTwoLowercaseDigitsEach() {
        #expect([UInt8]([0x00, 0x0f, 0xa0, 0xff]).hexString == "000fa0ff")
        #expect([UInt8]().hexString == "")
        #expect(Array("Warmer".utf8).hexString == "5761726d6572")
    }
}
