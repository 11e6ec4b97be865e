import Testing
import WarmerInput

/// JSON as Redis's Lua decodes it (lua-cjson, invalid numbers off): the
/// messages below are the ones a Redis 7.0 printed for the same texts.
@Suite struct CJSONDecoderTests {
    @Test(arguments: [
        ("", "Expected value but found T_END at character 1"),
        ("nul", "Expected value but found invalid token at character 1"),
        (#"{"v":0x10}"#, "Expected value but found invalid number at character 6"),
        (#"{"v":+1}"#, "Expected value but found invalid token at character 6"),
        (#"{"v":-inf}"#, "Expected value but found invalid number at character 6"),
        (#"{"v":Infinity}"#, "Expected value but found invalid token at character 6"),
        (#"{"v":01}"#, "Expected value but found invalid number at character 6"),
        (#""\u00zz""#, "Expected value but found invalid unicode escape code at character 2"),
        (#""\ud800""#, "Expected value but found invalid unicode escape code at character 2"),
        (#"{"a" 1}"#, "Expected colon but found T_NUMBER at character 6"),
        ("[1 2]", "Expected comma or array end but found T_NUMBER at character 4"),
        ("{1:2}", "Expected object key string but found T_NUMBER at character 2"),
        (#"{"v":1}x"#, "Expected the end but found invalid token at character 8"),
        (#""abc"#, "Expected value but found unexpected end of string at character 5"),
        ("-", "Expected value but found invalid number at character 1"),
        ("1\u{0}", "JSON parser does not support UTF-16 or UTF-32"),
        (String(repeating: "[", count: 1001) + String(repeating: "]", count: 1001),
         "Found too many nested data structures (1001) at character 1001"),
    ])
    func refusesWhatCJSONRefusesWithItsMessage(_ text: String, _ message: String) {
        #expect {
            try CJSONDecoder.decode(Array(text.utf8))
        } throws: { error in
            (error as? CJSONDecoder.Failure)?.message == message
        }
    }

    @Test func readsNumbersTheWayStrtodDoes() throws {
        #expect(try CJSONDecoder.decode(Array("-.5".utf8)) == .number(-0.5))
        #expect(try CJSONDecoder.decode(Array("1.".utf8)) == .number(1))
        #expect(try CJSONDecoder.decode(Array("[1.e1,1e999,2E-1]".utf8)) == .array([.number(10), .number(.infinity), .number(0.2)]))
    }

    @Test func keepsStringsAsBytesAndTheLastOfARepeatedKey() throws {
        let value = try CJSONDecoder.decode(Array(#"{"a":"\u00e9\ud83d\ude00","a":"x\/y","b":null}"#.utf8) + [0])
        #expect(value == .object([Array("a".utf8): .string(Array("x/y".utf8)), Array("b".utf8): .null]))
        let bytes = try CJSONDecoder.decode([0x22, 0xFF, 0x01, 0x22])
        #expect(bytes == .string([0xFF, 0x01]))
    }

    @Test func endsTheTextAtTheFirstNulByte() throws {
        #expect(try CJSONDecoder.decode(Array(#"{"v":1} "#.utf8) + [0] + Array("garbage".utf8)).field("v") == .number(1))
    }

    @Test func acceptsAThousandNestedArrays() throws {
        let text = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        #expect(try CJSONDecoder.decode(Array(text.utf8)).isTable)
    }
}
