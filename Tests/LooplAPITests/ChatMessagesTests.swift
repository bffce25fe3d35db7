@testable import LooplAPI
import Loopl
import Testing

@Suite struct ChatMessagesTests {
    func messages(_ list: String) throws(APIError) -> [Message] {
        try request(#"{"messages":"# + list + "}").messages
    }

    @Test func rolesBecomeLooplMessages() throws {
        let read = try messages(#"""
            [{"role":"system","content":"Be brief."},{"role":"developer","content":"Use tools."},
             {"role":"user","content":[{"type":"text","text":"Hello, "},{"type":"text","text":"world"}]},
             {"role":"assistant","content":"Hi.","reasoning_content":"A greeting."},
             {"role":"assistant","content":[{"type":"text","text":"Parts."}]},
             {"role":"assistant","content":null}]
            """#)
        #expect(read == [.system("Be brief."), .system("Use tools."), .user("Hello, world"),
                         .assistant(text: "Hi.", toolCalls: [], reasoning: "A greeting."),
                         .assistant("Parts."), .assistant("")])
    }

    @Test func aToolRoundTripKeepsIdsNamesAndArguments() throws {
        let read = try messages(#"""
            [{"role":"user","content":"Weather in Paris and Rome?"},
             {"role":"assistant","content":null,"tool_calls":[
                {"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\",\"days\":2}"}},
                {"id":"call_2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},
             {"role":"tool","tool_call_id":"call_1","content":"Sunny"},
             {"role":"tool","tool_call_id":"call_2","name":"forecast","content":[{"type":"text","text":"Rain"}]}]
            """#)
        #expect(read.count == 4)
        let calls = read[1].toolCalls
        #expect(read[1].text == "")
        #expect(calls.map(\.id) == ["call_1", "call_2"])
        #expect(calls.map(\.name) == ["weather", "weather"])
        #expect(calls[0].arguments == ["city": "Paris", "days": 2])
        #expect(calls[0].arguments.keys == ["city", "days"])
        #expect(read[2] == .tool(result: "Sunny", callId: "call_1", name: "weather"))
        #expect(read[3] == .tool(result: "Rain", callId: "call_2", name: "forecast"))
    }

    @Test func emptyArgumentsAreNoArguments() throws {
        let read = try messages(#"[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"now","arguments":" "}}]}]"#)
        #expect(read[0].toolCalls == [ToolCall(id: "c", name: "now")])
    }

    @Test(arguments: [
        (#"[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}]}]"#,
         "messages[0].content[1].type", "images are not supported"),
        (#"[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]"#, "messages[0].content[0].type", "audio"),
        (#"[{"role":"user","content":[{"type":"file","file":{}}]}]"#, "messages[0].content[0].type", "files"),
        (#"[{"role":"user","content":[{"text":"a"}]}]"#, "messages[0].content[0].type", "is required"),
        (#"[{"role":"user","content":42}]"#, "messages[0].content", "must be a string or an array"),
        (#"[{"role":"user"}]"#, "messages[0].content", "is required"),
        (#"[{"content":"hi"}]"#, "messages[0].role", "is required"),
        (#"[{"role":"wizard","content":"hi"}]"#, "messages[0].role", "\"wizard\""),
        (#"["hi"]"#, "messages[0]", "must be an object"),
        (#"[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}]"#,
         "messages[1].tool_calls[0].function.arguments", "is not valid JSON"),
        (#"[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[1]"}}]}]"#,
         "messages[0].tool_calls[0].function.arguments", "must hold a JSON object"),
        (#"[{"role":"assistant","tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}]"#,
         "messages[0].tool_calls[0].function.name", "is required"),
        (#"[{"role":"tool","content":"r"}]"#, "messages[0].tool_call_id", "is required"),
        (#"[{"role":"tool","tool_call_id":"nope","content":"r"}]"#, "messages[0].tool_call_id", "no earlier assistant tool call"),
    ])
    func wrongMessagesAreNamed(list: String, param: String, says: String) {
        let error = rejection(#"{"messages":"# + list + "}")
        #expect(error?.status == 400)
        #expect(error?.param == param)
        #expect(error?.message.contains("`\(param)`") == true)
        #expect(error?.message.contains(says) == true, "\(error?.message ?? "accepted")")
    }

    @Test func anImagePartSaysToSendText() {
        let error = rejection(#"{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}]}"#)
        #expect(error?.message == "`messages[0].content[1].type` is \"image_url\": images are not supported; send text parts.")
    }
}
