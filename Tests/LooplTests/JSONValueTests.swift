import Foundation
import Loopl
import Testing

@Suite struct JSONValueTests {
    @Test(arguments: [
        "1", "1.0", "-0", "0", "true", "false", "null", "1e+16", "0.1", "-12.5",
        #""h\u00e9llo ✓ 🎉 \"q\" \\ \n""#, #"[1,1.0,true,0,null]"#,
        #"{"b":1,"a":{"z":[1,{"y":2.5}],"x":"é"},"c":false}"#,
        "9223372036854775807", "1.5e-07",
    ])
    func textRoundTripIsLossless(_ text: String) throws {
        let value = try JSONValue(parsing: text)
        let again = try JSONValue(parsing: value.jsonText())
        #expect(again == value)
        #expect(value.jsonText() == (try JSONValue(parsing: value.jsonText())).jsonText())
    }

    @Test func integersDoublesAndBooleansStayApart() throws {
        let value = try JSONValue(parsing: #"{"one": 1, "onePoint": 1.0, "yes": true, "zero": 0}"#)
        #expect(value["one"] == .integer(1))
        #expect(value["onePoint"] == .double(1.0))
        #expect(value["yes"] == .bool(true))
        #expect(value["zero"] == .integer(0))
        #expect(value.jsonText() == #"{"one":1,"onePoint":1.0,"yes":true,"zero":0}"#)
    }

    @Test func keyOrderIsKept() throws {
        let text = #"{"zeta":1,"alpha":2,"mid":{"b":1,"a":2}}"#
        #expect(try JSONValue(parsing: text).jsonText() == text)
    }

    @Test func pythonStyleMatchesJsonDumps() throws {
        let value = try JSONValue(parsing: #"{"a": [1, 2.0, "ü"], "b": {"c": null}}"#)
        #expect(value.jsonText(style: .python) == #"{"a": [1, 2.0, "ü"], "b": {"c": null}}"#)
    }

    @Test func escapesRoundTrip() throws {
        let value = try JSONValue(parsing: #""\ud83d\ude00 \u0001 tab\t""#)
        #expect(value == .string("😀 \u{01} tab\t"))
        #expect(value.jsonText() == #""😀 \u0001 tab\t""#)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "tru", "01", "1.", "\"abc", "{\"a\":1}x", "[\"\u{01}\"]"])
    func malformedTextIsATypedError(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        do { _ = try JSONValue(parsing: text) } catch {
            #expect(error.message.hasPrefix("Invalid JSON at byte \(error.offset): "))
            #expect(LooplError(error).code == .invalidJSON)
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }

    @Test func objectEqualityIgnoresOrder() {
        let a: JSONObject = ["x": 1, "y": 2]
        let b: JSONObject = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Array(a.keys) == ["x", "y"])
    }

    @Test func codableThroughFoundationKeepsValues() throws {
        let value: JSONValue = ["s": "é", "i": 3, "b": false, "a": [1, "x"], "n": nil, "d": 2.5]
        let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
    }
}
