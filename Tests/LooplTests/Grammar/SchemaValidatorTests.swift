import Loopl
import LooplTestKit
import Testing

/// The validator judges the grammar and real-model tests, so it must be seen to reject: for every
/// keyword it checks, one instance that passes and one that fails, each for that keyword alone.
@Suite struct SchemaValidatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let keyword: String
        let schema: String
        let valid: String
        let invalid: String
        var testDescription: String { keyword }
    }

    static let cases: [Case] = [
        Case(keyword: "false schema", schema: #"{"properties": {"a": false}}"#, valid: #"{"b": 1}"#, invalid: #"{"a": 1}"#),
        Case(keyword: "nullable", schema: #"{"type": "string", "nullable": true}"#, valid: "null", invalid: "1"),
        Case(keyword: "$ref", schema: ##"{"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}"##, valid: "3", invalid: #""3""#),
        Case(keyword: "allOf", schema: #"{"allOf": [{"type": "integer"}, {"minimum": 2}]}"#, valid: "2", invalid: "1"),
        Case(keyword: "anyOf", schema: #"{"anyOf": [{"type": "integer"}, {"type": "boolean"}]}"#, valid: "true", invalid: #""x""#),
        Case(keyword: "oneOf", schema: #"{"oneOf": [{"type": "integer"}, {"minimum": 0}]}"#, valid: "-1", invalid: "1"),
        Case(keyword: "const", schema: #"{"const": "on"}"#, valid: #""on""#, invalid: #""off""#),
        Case(keyword: "const number", schema: #"{"const": 1}"#, valid: "1.0", invalid: "2"),
        Case(keyword: "enum", schema: #"{"enum": ["red", 2, null]}"#, valid: "null", invalid: #""blue""#),
        Case(keyword: "type", schema: #"{"type": "string"}"#, valid: #""x""#, invalid: "1"),
        Case(keyword: "type list", schema: #"{"type": ["string", "null"]}"#, valid: "null", invalid: "false"),
        Case(keyword: "type integer", schema: #"{"type": "integer"}"#, valid: "2.0", invalid: "2.5"),
        Case(keyword: "type number", schema: #"{"type": "number"}"#, valid: "2.5", invalid: #""2.5""#),
        Case(keyword: "type object", schema: #"{"type": "object"}"#, valid: "{}", invalid: "[]"),
        Case(keyword: "type array", schema: #"{"type": "array"}"#, valid: "[]", invalid: "{}"),
        Case(keyword: "type boolean", schema: #"{"type": "boolean"}"#, valid: "false", invalid: "0"),
        Case(keyword: "type null", schema: #"{"type": "null"}"#, valid: "null", invalid: "0"),
        Case(keyword: "required", schema: #"{"type": "object", "required": ["a"]}"#, valid: #"{"a": 1}"#, invalid: #"{"b": 1}"#),
        Case(keyword: "properties", schema: #"{"properties": {"a": {"type": "string"}}}"#, valid: #"{"a": "x"}"#, invalid: #"{"a": 1}"#),
        Case(keyword: "additionalProperties false", schema: #"{"properties": {"a": {}}, "additionalProperties": false}"#,
             valid: #"{"a": 1}"#, invalid: #"{"a": 1, "b": 2}"#),
        Case(keyword: "additionalProperties schema", schema: #"{"additionalProperties": {"type": "integer"}}"#,
             valid: #"{"b": 2}"#, invalid: #"{"b": "2"}"#),
        Case(keyword: "minItems", schema: #"{"minItems": 2}"#, valid: "[1, 2]", invalid: "[1]"),
        Case(keyword: "maxItems", schema: #"{"maxItems": 1}"#, valid: "[1]", invalid: "[1, 2]"),
        Case(keyword: "items", schema: #"{"items": {"type": "integer"}}"#, valid: "[1, 2]", invalid: #"[1, "2"]"#),
        Case(keyword: "prefixItems", schema: #"{"prefixItems": [{"type": "string"}, {"type": "integer"}]}"#,
             valid: #"["a", 1, true]"#, invalid: #"["a", "b"]"#),
        Case(keyword: "prefixItems with items", schema: #"{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#,
             valid: #"["a", 1]"#, invalid: #"["a", "b"]"#),
        Case(keyword: "items as tuple", schema: #"{"items": [{"type": "string"}], "additionalItems": false}"#,
             valid: #"["a"]"#, invalid: #"["a", 1]"#),
        Case(keyword: "minLength", schema: #"{"minLength": 2}"#, valid: #""é!""#, invalid: #""é""#),
        Case(keyword: "maxLength", schema: #"{"maxLength": 2}"#, valid: #""éé""#, invalid: #""abc""#),
        Case(keyword: "pattern", schema: #"{"pattern": "^[a-z]+$"}"#, valid: #""abc""#, invalid: #""ab1""#),
        Case(keyword: "format date", schema: #"{"format": "date"}"#, valid: #""2024-02-29""#, invalid: #""2024-13-01""#),
        Case(keyword: "format time", schema: #"{"format": "time"}"#, valid: #""23:59:59Z""#, invalid: #""24:00:00Z""#),
        Case(keyword: "format date-time", schema: #"{"format": "date-time"}"#, valid: #""2024-01-02T03:04:05+01:00""#,
             invalid: #""2024-01-02 03:04:05""#),
        Case(keyword: "format uuid", schema: #"{"format": "uuid"}"#, valid: #""123e4567-e89b-12d3-a456-426614174000""#,
             invalid: #""123e4567-e89b-12d3-a456-42661417400""#),
        Case(keyword: "minimum", schema: #"{"minimum": 1}"#, valid: "1", invalid: "0.5"),
        Case(keyword: "maximum", schema: #"{"maximum": 1}"#, valid: "1", invalid: "2"),
        Case(keyword: "exclusiveMinimum", schema: #"{"exclusiveMinimum": 1}"#, valid: "1.5", invalid: "1"),
        Case(keyword: "exclusiveMaximum", schema: #"{"exclusiveMaximum": 1}"#, valid: "0", invalid: "1"),
        Case(keyword: "nested", schema: #"{"properties": {"a": {"items": {"properties": {"b": {"enum": [1]}}}}}}"#,
             valid: #"{"a": [{"b": 1}]}"#, invalid: #"{"a": [{"b": 1}, {"b": 2}]}"#),
    ]

    @Test(arguments: cases)
    func eachKeywordAcceptsAValidAndRejectsAnInvalidInstance(_ example: Case) throws {
        let validator = SchemaValidator(schema: try JSONValue(parsing: example.schema))
        #expect(validator.errors(try JSONValue(parsing: example.valid)) == [], "\(example.keyword) rejected \(example.valid)")
        #expect(validator.errors(try JSONValue(parsing: example.invalid)) != [], "\(example.keyword) accepted \(example.invalid)")
    }

    @Test func errorsNameThePathOfTheFailingValue() throws {
        let validator = SchemaValidator(schema: try JSONValue(parsing: #"{"properties": {"a": {"items": {"type": "string"}}}}"#))
        #expect(validator.errors(try JSONValue(parsing: #"{"a": ["x", 2]}"#)) == ["$.a[1]: not of type string"])
    }

    @Test func anUnresolvedReferenceIsAnError() throws {
        let validator = SchemaValidator(schema: try JSONValue(parsing: ##"{"$ref": "#/$defs/missing"}"##))
        #expect(validator.errors(1) == ["$: unresolved #/$defs/missing"])
    }

    @Test func aSelfReferenceEndsWithAnError() throws {
        let validator = SchemaValidator(schema: try JSONValue(parsing: ##"{"$ref": "#"}"##))
        #expect(validator.errors(1).contains { $0.contains("too deep") })
    }
}
