/// How thinking reaches a chat template: the variables each ``ReasoningSetting`` sets, and where a
/// family's template reads the thinking of past turns (docs/reasoning.md lists both).
///
/// Messages carry their thinking as `reasoning_content`; the templates of gpt-oss and LFM2 read a
/// `thinking` key instead, and Ministral 3's a `{"type": "thinking"}` content part, so those get
/// it there too, as llama.cpp's own chat code gives it to them. Whether a template shows the
/// thinking of a past turn is the template's choice.
package enum TemplateReasoning {
    /// Where a template reads the thinking of past assistant turns.
    package enum Slot: Sendable, Hashable {
        /// `reasoning_content`, as the messages carry it.
        case reasoningContent
        /// A `thinking` key next to it (gpt-oss, LFM2); gpt-oss also wants no `content` on a turn
        /// that thought and called tools.
        case thinkingKey(dropsContentWithCalls: Bool)
        /// Ministral 3: the content of system and assistant turns as parts, a `{"type": "thinking",
        /// "thinking": ...}` part first when the turn thought.
        case thinkingPart
    }

    /// The slot of the template `source`, recognised by its markers as llama.cpp recognises it.
    package static func slot(ofTemplate source: String) -> Slot {
        if ["[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]"].allSatisfy(source.contains), !source.contains("[CALL_ID]") {
            return .thinkingPart
        }
        if source.contains("<|channel|>") { return .thinkingKey(dropsContentWithCalls: true) }
        let lfm2 = source.contains("<|tool_list_start|>") && source.contains("<|tool_list_end|>")
        let lfm25 = source.contains("List of tools: [") && !source.contains("<|tool_list_start|>")
        return lfm2 || lfm25 ? .thinkingKey(dropsContentWithCalls: false) : .reasoningContent
    }

    /// The messages (OpenAI-style values) with their thinking where a template of `slot` reads it.
    package static func messages(_ messages: [JSONValue], for slot: Slot) -> [JSONValue] {
        guard slot != .reasoningContent else { return messages }
        return messages.map { message in
            guard case .object(var object) = message else { return message }
            let reasoning = object["reasoning_content"]?.stringValue
            switch slot {
            case .reasoningContent:
                break
            case .thinkingKey(let dropsContent):
                guard let reasoning else { return message }
                object["thinking"] = .string(reasoning)
                if dropsContent, !(object["tool_calls"]?.arrayValue ?? []).isEmpty { object["content"] = nil }
            case .thinkingPart:
                guard ["system", "assistant"].contains(object["role"]?.stringValue ?? "") else { return message }
                var parts: [JSONValue] = reasoning.map { [["type": "thinking", "thinking": .string($0)]] } ?? []
                switch object["content"] {
                case .string(let text)?: parts.append(["type": "text", "text": .string(text)])
                case .array(let items)?: parts += items
                default: break
                }
                object["content"] = .array(parts)
                object["reasoning_content"] = nil
            }
            return .object(object)
        }
    }

    /// The template variables `setting` sets. `.auto` turns thinking on where a template can switch
    /// it (`enable_thinking`, as llama-server does) and leaves the rest to the template; `.on`
    /// and the efforts also set `thinking` and `thinking_mode`, the efforts `reasoning_effort` and
    /// `reasoning_strength`; `.off` sets them all off. Past thinking is kept in the history
    /// (`preserve_thinking`, and `clear_thinking`, `truncate_history_thinking`, `drop_thinking`
    /// false), except under `.off`, where it is dropped.
    package static func variables(_ setting: ReasoningSetting) -> JSONObject {
        var variables: JSONObject = [:]
        let on = setting != .off
        variables["enable_thinking"] = .bool(on)
        if setting != .auto {
            variables["thinking"] = .bool(on)
            variables["thinking_mode"] = on ? "enabled" : "disabled"
        }
        if case .effort(let effort) = setting {
            variables["reasoning_effort"] = .string(effort.rawValue)
            variables["reasoning_strength"] = .string(effort.rawValue)
        }
        variables["preserve_thinking"] = .bool(on)
        for drops in ["clear_thinking", "truncate_history_thinking", "drop_thinking"] { variables[drops] = .bool(!on) }
        return variables
    }

    /// The setting a request renders with: a budget of 0 thinking tokens is no thinking.
    package static func setting(of options: GenerationOptions) -> ReasoningSetting {
        options.reasoningBudget == 0 ? .off : options.reasoning
    }
}
