import Loopl

/// A JSON Schema with instances that a grammar made from it must accept and must reject.
///
/// Valid instances put required properties first, in declared order, then optional ones in
/// declared order, and use the whitespace the grammar allows (see docs/grammar.md).
public struct GrammarCase: Sendable, CustomStringConvertible {
    public let name: String
    public let schema: JSONValue
    public let valid: [String]
    public let invalid: [String]

    public init(_ name: String, _ schema: String, valid: [String], invalid: [String]) {
        self.name = name
        self.schema = (try? JSONValue(parsing: schema)) ?? .string("unparsable schema: \(schema)")
        self.valid = valid
        self.invalid = invalid
    }

    public var description: String { name }
}

extension GrammarCase {
    /// Real tool-parameter schemas and structured-output schemas.
    public static let all: [GrammarCase] = [
        GrammarCase("get_weather", #"""
            {"type": "object", "properties": {"location": {"type": "string", "description": "City and country"},
             "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}
            """#,
            valid: [#"{"location": "Paris, France"}"#, #"{"location": "Tokyo", "unit": "celsius"}"#,
                    #"{ "location" : "Zürich \"CH\"" }"#, "{\n  \"location\": \"Oslo\",\n  \"unit\": \"fahrenheit\"\n}"],
            invalid: [#"{}"#, #"{"unit": "celsius"}"#, #"{"location": "Paris", "unit": "kelvin"}"#,
                      #"{"location": 42}"#, #"{"location": "Paris", "extra": 1}"#, #"{"location": "Paris""#]),
        GrammarCase("web_search", #"""
            {"type": "object", "properties": {"query": {"type": "string", "minLength": 1},
             "max_results": {"type": "integer", "minimum": 1, "maximum": 20},
             "safe": {"type": "boolean"}}, "required": ["query"], "additionalProperties": false}
            """#,
            valid: [#"{"query": "swift concurrency"}"#, #"{"query": "a", "max_results": 20, "safe": false}"#,
                    #"{"query": "llama", "max_results": 7}"#],
            invalid: [#"{"query": ""}"#, #"{"query": "x", "max_results": 0}"#, #"{"query": "x", "max_results": 21}"#,
                      #"{"query": "x", "max_results": 3.5}"#, #"{"query": "x", "safe": "yes"}"#]),
        GrammarCase("send_email", #"""
            {"type": "object", "properties": {"to": {"type": "array", "items": {"type": "string", "format": "email"}, "minItems": 1, "maxItems": 3},
             "subject": {"type": "string", "maxLength": 20}, "body": {"type": "string"},
             "cc": {"type": "array", "items": {"type": "string"}}}, "required": ["to", "subject", "body"]}
            """#,
            valid: [#"{"to": ["a@b.c"], "subject": "Hi", "body": "Hello\nthere"}"#,
                    #"{"to": ["a@b.c", "d@e.f", "g@h.i"], "subject": "", "body": "", "cc": []}"#],
            invalid: [#"{"to": [], "subject": "Hi", "body": "x"}"#,
                      #"{"to": ["1", "2", "3", "4"], "subject": "Hi", "body": "x"}"#,
                      #"{"to": ["a@b.c"], "subject": "this subject is far too long", "body": "x"}"#,
                      #"{"subject": "Hi", "to": ["a@b.c"], "body": "x"}"#]),
        GrammarCase("create_event", #"""
            {"type": "object", "properties": {"title": {"type": "string"}, "start": {"type": "string", "format": "date-time"},
             "day": {"type": "string", "format": "date"}, "at": {"type": "string", "format": "time"},
             "attendees": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"},
               "email": {"type": "string"}}, "required": ["name"]}},
             "priority": {"enum": ["low", "normal", "high", null]}}, "required": ["title", "start"]}
            """#,
            valid: [#"{"title": "Standup", "start": "2026-11-29T09:30:00Z"}"#,
                    #"{"title": "Review", "start": "2026-01-31T23:59:59+02:00", "day": "2026-02-28", "at": "12:00:00.123Z", "attendees": [{"name": "Ada"}, {"name": "Bob", "email": "b@x.y"}], "priority": null}"#],
            invalid: [#"{"title": "x", "start": "2026-13-01T00:00:00Z"}"#, #"{"title": "x", "start": "tomorrow"}"#,
                      #"{"title": "x", "start": "2026-11-29T09:30:00Z", "day": "2026-11-29T00:00:00Z"}"#,
                      #"{"title": "x", "start": "2026-11-29T09:30:00Z", "attendees": [{"email": "a@b.c"}]}"#,
                      #"{"title": "x", "start": "2026-11-29T09:30:00Z", "priority": "urgent"}"#]),
        GrammarCase("calculator", #"""
            {"type": "object", "properties": {"expression": {"type": "string"}, "precision": {"type": "number"}},
             "required": ["expression", "precision"]}
            """#,
            valid: [#"{"expression": "2+2", "precision": 0.001}"#, #"{"expression": "pi", "precision": -1.5e-3}"#,
                    #"{"expression": "e", "precision": 10}"#],
            invalid: [#"{"expression": "2+2", "precision": "high"}"#, #"{"expression": "2+2", "precision": 01}"#,
                      #"{"expression": "2+2", "precision": .5}"#, #"{"expression": "2+2"}"#]),
        GrammarCase("no_parameters", #"{"type": "object", "properties": {}}"#,
            valid: [#"{}"#, #"{ }"#], invalid: [#"{"a": 1}"#, #"[]"#, #"null"#]),
        GrammarCase("read_file", #"""
            {"type": "object", "properties": {"path": {"type": "string", "pattern": "^/[a-zA-Z0-9_./-]+$"},
             "encoding": {"type": ["string", "null"]}, "offset": {"type": "integer", "minimum": 0}}, "required": ["path"]}
            """#,
            valid: [#"{"path": "/etc/hosts"}"#, #"{"path": "/a/b_c.txt", "encoding": null, "offset": 0}"#,
                    #"{"path": "/x", "encoding": "utf-8", "offset": 12345}"#],
            invalid: [#"{"path": "etc/hosts"}"#, #"{"path": "/a b"}"#, #"{"path": "/x", "offset": -1}"#,
                      #"{"path": "/x", "encoding": 8}"#, #"{"path": "/x", "offset": 007}"#]),
        GrammarCase("person", #"""
            {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 150},
             "email": {"type": "string", "format": "email"},
             "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"},
               "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["city"]},
             "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}},
             "required": ["name", "age"]}
            """#,
            valid: [#"{"name": "Ada", "age": 36}"#, #"{"name": "Bo", "age": 150, "address": {"city": "Rome", "zip": "00184"}, "tags": ["x", "y"]}"#,
                    #"{"name": "C", "age": 0, "address": {"city": "Oslo", "street": "Karl Johans gate 1"}}"#],
            invalid: [#"{"name": "Ada", "age": 151}"#, #"{"name": "Ada", "age": -1}"#,
                      #"{"name": "Ada", "age": 3, "address": {"zip": "12345"}}"#,
                      #"{"name": "Ada", "age": 3, "address": {"city": "X", "zip": "1234"}}"#]),
        GrammarCase("classification", #"""
            {"type": "object", "properties": {"label": {"type": "string", "enum": ["positive", "negative", "neutral"]},
             "confidence": {"type": "number", "minimum": 0, "maximum": 1}, "version": {"const": 2}},
             "required": ["label", "confidence", "version"]}
            """#,
            valid: [#"{"label": "neutral", "confidence": 0.5, "version": 2}"#, #"{"label": "positive", "confidence": 1, "version": 2}"#,
                    #"{"label": "negative", "confidence": 0.0, "version": 2}"#],
            invalid: [#"{"label": "mixed", "confidence": 0.5, "version": 2}"#, #"{"label": "neutral", "confidence": 0.5, "version": 3}"#,
                      #"{"label": "neutral", "confidence": 1.5, "version": 2}"#, #"{"label": "neutral", "confidence": -0.1, "version": 2}"#]),
        GrammarCase("tree_ref", #"""
            {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"},
             "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["value"]}}}
            """#,
            valid: [#"{"value": 1}"#, #"{"value": 1, "children": [{"value": 2}, {"value": 3, "children": [{"value": -4}]}]}"#],
            invalid: [#"{"value": 1, "children": [{"children": []}]}"#, #"{"value": "1"}"#]),
        GrammarCase("definitions_ref", #"""
            {"type": "object", "properties": {"home": {"$ref": "#/definitions/point"}, "work": {"$ref": "#/definitions/point"}},
             "required": ["home"], "definitions": {"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}}}
            """#,
            valid: [#"{"home": [1.5, -2]}"#, #"{"home": [0, 0], "work": [3, 4]}"#],
            invalid: [#"{"home": [1]}"#, #"{"home": [1, 2, 3]}"#, #"{"home": ["a", 2]}"#]),
        GrammarCase("any_of_nullable", #"""
            {"type": "object", "properties": {"id": {"anyOf": [{"type": "integer"}, {"type": "string", "format": "uuid"}]},
             "note": {"type": "string", "nullable": true},
             "shape": {"oneOf": [{"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
                                 {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}]}},
             "required": ["id", "note", "shape"]}
            """#,
            valid: [#"{"id": 5, "note": null, "shape": {"kind": "circle", "r": 1}}"#,
                    #"{"id": "123e4567-e89b-12d3-a456-426614174000", "note": "hi", "shape": {"kind": "square", "side": 2}}"#],
            invalid: [#"{"id": "abc", "note": null, "shape": {"kind": "circle", "r": 1}}"#,
                      #"{"id": 5, "note": 1, "shape": {"kind": "circle", "r": 1}}"#,
                      #"{"id": 5, "note": null, "shape": {"kind": "circle", "side": 1}}"#]),
        GrammarCase("all_of", #"""
            {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                       {"properties": {"b": {"type": "integer", "maximum": 9}}, "required": ["b"]}]}
            """#,
            valid: [#"{"a": "x", "b": 9}"#, #"{"a": "", "b": -100}"#],
            invalid: [#"{"a": "x"}"#, #"{"b": 1}"#, #"{"a": "x", "b": 10}"#]),
        GrammarCase("additional_properties", #"""
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
             "additionalProperties": {"type": "integer"}}
            """#,
            valid: [#"{"name": "x"}"#, #"{"name": "x", "count": 3, "n": 4}"#, #"{"name": "x", "names": 3}"#],
            invalid: [#"{"name": "x", "count": "3"}"#, #"{"name": "x", "name": 3}"#]),
        GrammarCase("free_dictionary", #"{"type": "object", "additionalProperties": {"type": "string"}}"#,
            valid: [#"{}"#, #"{"a": "b", "c": "d"}"#], invalid: [#"{"a": 1}"#, #"{"a"}"#]),
        GrammarCase("integer_ranges", #"""
            {"type": "array", "prefixItems": [{"type": "integer", "minimum": -5, "maximum": 5},
              {"type": "integer", "minimum": 10}, {"type": "integer", "maximum": -10},
              {"type": "integer", "exclusiveMinimum": 99, "exclusiveMaximum": 1000}]}
            """#,
            valid: [#"[-5, 10, -10, 100]"#, #"[0, 123456, -99999, 999]"#, #"[5, 99, -11, 555]"#],
            invalid: [#"[6, 10, -10, 100]"#, #"[-6, 10, -10, 100]"#, #"[0, 9, -10, 100]"#, #"[0, 10, -9, 100]"#,
                      #"[0, 10, 0, 100]"#, #"[0, 10, -10, 99]"#, #"[0, 10, -10, 1000]"#, #"[-0, 10, -10, 100]"#]),
        GrammarCase("string_lengths", #"{"type": "array", "items": {"type": "string", "minLength": 2, "maxLength": 4}, "maxItems": 2}"#,
            valid: [#"[]"#, #"["ab"]"#, #"["abcd", "\n\t"]"#],
            invalid: [#"["a"]"#, #"["abcde"]"#, #"["ab", "cd", "ef"]"#]),
        GrammarCase("patterns", #"""
            {"type": "object", "properties": {"phone": {"type": "string", "pattern": "^\\+?[0-9]{1,3}( [0-9]{2,4}){2,3}$"},
             "code": {"type": "string", "pattern": "^(?:ab|cd)+-[A-F0-9]{2}$"}, "word": {"type": "string", "pattern": "\\d\\d"}},
             "required": ["phone", "code", "word"]}
            """#,
            valid: [#"{"phone": "+33 12 34", "code": "abcd-0F", "word": "x12y"}"#, #"{"phone": "1 123 4567 89", "code": "ab-00", "word": "00"}"#],
            invalid: [#"{"phone": "+33", "code": "ab-00", "word": "00"}"#, #"{"phone": "1 12 34", "code": "abx-00", "word": "00"}"#,
                      #"{"phone": "1 12 34", "code": "ab-0g", "word": "0a0"}"#]),
        GrammarCase("any_json", #"{}"#,
            valid: [#"1"#, #"{"a": [true, null, "x", -1.5e10]}"#, #""s""#],
            invalid: [#"{"a": }"#, #"tru"#, #"[1,]"#]),
        GrammarCase("top_level_enum_mixed", #"{"enum": ["a", 1, true, null, {"k": [1]}]}"#,
            valid: [#""a""#, #"1"#, #"true"#, #"null"#, #"{"k":[1]}"#],
            invalid: [#""b""#, #"2"#, #"false"#, #"{"k": [1]}"#]),
    ]
}
