import Foundation

/// The chat templates Loopl carries, by name, for a model whose GGUF has none or the wrong one
/// (`--chat-template NAME`, `"chatTemplate": NAME`): each family's template as its model card or
/// llama.cpp's collection gives it, with its tool-call format where the family has one.
package enum BuiltInTemplate {
    /// One template: its name, a line about it, and its Jinja source.
    package struct Entry: Sendable {
        package let name: String
        package let summary: String
        package let source: String
    }

    /// Every built-in template, `chatml` (the fallback of a model without one) first.
    package static let all: [Entry] = [
        Entry(name: "chatml", summary: "ChatML (SmolLM, Hermes, many fine-tunes); calls in Hermes <tool_call> markup", source: ChatPrompt.chatML),
        Entry(name: "llama3", summary: "Llama 3.1, 3.2 and 3.3 Instruct; calls as JSON after <|python_tag|> or in text", source: #"""
            {{- bos_token }}
            {%- if custom_tools is defined %}
                {%- set tools = custom_tools %}
            {%- endif %}
            {%- if not tools_in_user_message is defined %}
                {%- set tools_in_user_message = true %}
            {%- endif %}
            {%- if not date_string is defined %}
                {%- set date_string = "26 Jul 2024" %}
            {%- endif %}
            {%- if not tools is defined %}
                {%- set tools = none %}
            {%- endif %}

            {#- This block extracts the system message, so we can slot it into the right place. #}
            {%- if messages[0]['role'] == 'system' %}
                {%- set system_message = messages[0]['content']|trim %}
                {%- set messages = messages[1:] %}
            {%- else %}
                {%- set system_message = "" %}
            {%- endif %}

            {#- System message + builtin tools #}
            {{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
            {%- if builtin_tools is defined or tools is not none %}
                {{- "Environment: ipython\n" }}
            {%- endif %}
            {%- if builtin_tools is defined %}
                {{- "Tools: " + builtin_tools | reject('equalto', 'code_interpreter') | join(", ") + "\n\n"}}
            {%- endif %}
            {{- "Cutting Knowledge Date: December 2023\n" }}
            {{- "Today Date: " + date_string + "\n\n" }}
            {%- if tools is not none and not tools_in_user_message %}
                {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}
                {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
                {{- "Do not use variables.\n\n" }}
                {%- for t in tools %}
                    {{- t | tojson(indent=4) }}
                    {{- "\n\n" }}
                {%- endfor %}
            {%- endif %}
            {{- system_message }}
            {{- "<|eot_id|>" }}

            {#- Custom tools are passed in a user message with some extra guidance #}
            {%- if tools_in_user_message and not tools is none %}
                {#- Extract the first user message so we can plug it in here #}
                {%- if messages | length != 0 %}
                    {%- set first_user_message = messages[0]['content']|trim %}
                    {%- set messages = messages[1:] %}
                {%- else %}
                    {{- raise_exception("Cannot put tools in the first user message when there's no first user message!") }}
            {%- endif %}
                {{- '<|start_header_id|>user<|end_header_id|>\n\n' -}}
                {{- "Given the following functions, please respond with a JSON for a function call " }}
                {{- "with its proper arguments that best answers the given prompt.\n\n" }}
                {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
                {{- "Do not use variables.\n\n" }}
                {%- for t in tools %}
                    {{- t | tojson(indent=4) }}
                    {{- "\n\n" }}
                {%- endfor %}
                {{- first_user_message + "<|eot_id|>"}}
            {%- endif %}

            {%- for message in messages %}
                {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
                    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
                {%- elif 'tool_calls' in message %}
                    {%- if not message.tool_calls|length == 1 %}
                        {{- raise_exception("This model only supports single tool-calls at once!") }}
                    {%- endif %}
                    {%- set tool_call = message.tool_calls[0].function %}
                    {%- if builtin_tools is defined and tool_call.name in builtin_tools %}
                        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
                        {{- "<|python_tag|>" + tool_call.name + ".call(" }}
                        {%- for arg_name, arg_val in tool_call.arguments | items %}
                            {{- arg_name + '="' + arg_val + '"' }}
                            {%- if not loop.last %}
                                {{- ", " }}
                            {%- endif %}
                            {%- endfor %}
                        {{- ")" }}
                    {%- else  %}
                        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
                        {{- '{"name": "' + tool_call.name + '", ' }}
                        {{- '"parameters": ' }}
                        {{- tool_call.arguments | tojson }}
                        {{- "}" }}
                    {%- endif %}
                    {%- if builtin_tools is defined %}
                        {#- This means we're in ipython mode #}
                        {{- "<|eom_id|>" }}
                    {%- else %}
                        {{- "<|eot_id|>" }}
                    {%- endif %}
                {%- elif message.role == "tool" or message.role == "ipython" %}
                    {{- "<|start_header_id|>ipython<|end_header_id|>\n\n" }}
                    {%- if message.content is mapping or message.content is iterable %}
                        {{- message.content | tojson }}
                    {%- else %}
                        {{- message.content }}
                    {%- endif %}
                    {{- "<|eot_id|>" }}
                {%- endif %}
            {%- endfor %}
            {%- if add_generation_prompt %}
                {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
            {%- endif %}
            """#),
        Entry(name: "gemma", summary: "Gemma 2 and 3 (the system prompt opens the first user turn); tools described Hermes-style", source: #"""
            {{ bos_token }}
            {%- if messages[0]['role'] == 'system' -%}
                {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}
                {%- set loop_messages = messages[1:] -%}
            {%- else -%}
                {%- set first_user_prefix = "" -%}
                {%- set loop_messages = messages -%}
            {%- endif -%}
            {%- for message in loop_messages -%}
                {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
                    {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
                {%- endif -%}
                {%- set role = "model" if message['role'] == 'assistant' else message['role'] -%}
                {{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else "") }}
                {{- message['content'] | trim -}}
                {{ '<end_of_turn>\n' }}
            {%- endfor -%}
            {%- if add_generation_prompt -%}
                {{ '<start_of_turn>model\n' }}
            {%- endif -%}
            """#),
        Entry(name: "mistral", summary: "Mistral Nemo and later; calls after [TOOL_CALLS]", source: #"""
            {%- if messages[0]["role"] == "system" %}
                {%- set system_message = messages[0]["content"] %}
                {%- set loop_messages = messages[1:] %}
            {%- else %}
                {%- set loop_messages = messages %}
            {%- endif %}
            {%- if not tools is defined %}
                {%- set tools = none %}
            {%- endif %}
            {%- set user_messages = loop_messages | selectattr("role", "equalto", "user") | list %}

            {#- This block checks for alternating user/assistant messages, skipping tool calling messages #}
            {%- set ns = namespace() %}
            {%- set ns.index = 0 %}
            {%- for message in loop_messages %}
                {%- if not (message.role == "tool" or message.role == "tool_results" or (message.tool_calls is defined and message.tool_calls is not none)) %}
                    {%- if (message["role"] == "user") != (ns.index % 2 == 0) %}
                        {{- raise_exception("After the optional system message, conversation roles must alternate user/assistant/user/assistant/...") }}
                    {%- endif %}
                    {%- set ns.index = ns.index + 1 %}
                {%- endif %}
            {%- endfor %}

            {{- bos_token }}
            {%- for message in loop_messages %}
                {%- if message["role"] == "user" %}
                    {%- if tools is not none and (message == user_messages[-1]) %}
                        {{- "[AVAILABLE_TOOLS][" }}
                        {%- for tool in tools %}
                            {%- set tool = tool.function %}
                            {{- '{"type": "function", "function": {' }}
                            {%- for key, val in tool.items() if key != "return" %}
                                {%- if val is string %}
                                    {{- '"' + key + '": "' + val + '"' }}
                                {%- else %}
                                    {{- '"' + key + '": ' + val|tojson }}
                                {%- endif %}
                                {%- if not loop.last %}
                                    {{- ", " }}
                                {%- endif %}
                            {%- endfor %}
                            {{- "}}" }}
                            {%- if not loop.last %}
                                {{- ", " }}
                            {%- else %}
                                {{- "]" }}
                            {%- endif %}
                        {%- endfor %}
                        {{- "[/AVAILABLE_TOOLS]" }}
                        {%- endif %}
                    {%- if loop.last and system_message is defined %}
                        {{- "[INST]" + system_message + "\n\n" + message["content"] + "[/INST]" }}
                    {%- else %}
                        {{- "[INST]" + message["content"] + "[/INST]" }}
                    {%- endif %}
                {%- elif (message.tool_calls is defined and message.tool_calls is not none) %}
                    {{- "[TOOL_CALLS][" }}
                    {%- for tool_call in message.tool_calls %}
                        {%- set out = tool_call.function|tojson %}
                        {{- out[:-1] }}
                        {%- if not tool_call.id is defined or tool_call.id|length != 9 %}
                            {{- raise_exception("Tool call IDs should be alphanumeric strings with length 9!") }}
                        {%- endif %}
                        {{- ', "id": "' + tool_call.id + '"}' }}
                        {%- if not loop.last %}
                            {{- ", " }}
                        {%- else %}
                            {{- "]" + eos_token }}
                        {%- endif %}
                    {%- endfor %}
                {%- elif message["role"] == "assistant" %}
                    {{- message["content"] + eos_token}}
                {%- elif message["role"] == "tool_results" or message["role"] == "tool" %}
                    {%- if message.content is defined and message.content.content is defined %}
                        {%- set content = message.content.content %}
                    {%- else %}
                        {%- set content = message.content %}
                    {%- endif %}
                    {{- '[TOOL_RESULTS]{"content": ' + content|string + ", " }}
                    {%- if not message.tool_call_id is defined or message.tool_call_id|length != 9 %}
                        {{- raise_exception("Tool call IDs should be alphanumeric strings with length 9!") }}
                    {%- endif %}
                    {{- '"call_id": "' + message.tool_call_id + '"}[/TOOL_RESULTS]' }}
                {%- else %}
                    {{- raise_exception("Only user and assistant roles are supported, with the exception of an initial optional system message!") }}
                {%- endif %}
            {%- endfor %}
            """#),
        Entry(name: "phi3", summary: "Phi-3 and Phi-3.5; tools described Hermes-style", source: #"""
            {% for message in messages %}{% if message['role'] == 'system' and message['content'] %}{{'<|system|>
            ' + message['content'] + '<|end|>
            '}}{% elif message['role'] == 'user' %}{{'<|user|>
            ' + message['content'] + '<|end|>
            '}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>
            ' + message['content'] + '<|end|>
            '}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>
            ' }}{% else %}{{ eos_token }}{% endif %}
            """#),
        Entry(name: "deepseek", summary: "DeepSeek R1 and its distills (llama.cpp's tool-aware R1 template); calls in <｜tool▁calls▁begin｜> markup", source: #"""
            {%- if not add_generation_prompt is defined -%}
                {%- set add_generation_prompt = false -%}
            {%- endif -%}
            {%- set ns = namespace(is_first=false, is_tool_outputs=false, is_output_first=true, system_prompt='') -%}
            {%- for message in messages -%}
                {%- if message['role'] == 'system' -%}
                    {%- set ns.system_prompt = message['content'] -%}
                {%- endif -%}
            {%- endfor -%}
            {{bos_token}}
            {%- if tools %}
            You can call any of the following function tools to satisfy the user's requests: {{tools | map(attribute='function') | list | tojson(indent=2)}}

            Example function tool call syntax:

            <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>example_function_name
            ```json
            {
              "arg1": "some_value"
              ...
            }
            ```
            <｜tool▁call▁end｜><｜tool▁calls▁end｜>

            {% endif -%}
            {{ns.system_prompt}}
            {%- macro flush_tool_outputs() -%}
                {%- if ns.is_tool_outputs -%}
                    {{- '<｜tool▁outputs▁end｜><｜end▁of▁sentence｜>' -}}
                    {%- set ns.is_tool_outputs = false -%}
                {%- endif -%}
            {%- endmacro -%}
            {{- flush_tool_outputs() -}}
            {%- for message in messages -%}
                {%- if message['role'] != 'tool' -%}
                    {{- flush_tool_outputs() -}}
                {%- endif -%}
                {%- if message['role'] == 'user' -%}
                    {{- '<｜User｜>' + message['content'] + '<｜end▁of▁sentence｜>' -}}
                {%- endif -%}
                {%- if message['role'] == 'assistant' and not message['content'] -%}
                    {{- '<｜Assistant｜><｜tool▁calls▁begin｜>' -}}
                    {%- set ns.is_first = true -%}
                    {%- for tc in message['tool_calls'] -%}
                        {%- if ns.is_first -%}
                            {%- set ns.is_first = false -%}
                        {%- else -%}
                            {{- '\n' -}}
                        {%- endif -%}
                        {%- set tool_name = tc['function']['name'] -%}
                        {%- set tool_args = tc['function']['arguments'] -%}
                        {{- '<｜tool▁call▁begin｜>' + tc['type'] + '<｜tool▁sep｜>' + tool_name + '\n' + '```json' + '\n' + tool_args | tojson + '\n' + '```' + '<｜tool▁call▁end｜>' -}}
                    {%- endfor -%}
                    {{- '<｜tool▁calls▁end｜><｜end▁of▁sentence｜>' -}}
                {%- endif -%}
                {%- if message['role'] == 'assistant' and message['content'] -%}
                    {{- flush_tool_outputs() -}}
                    {%- set content = message['content'] -%}
                    {%- if '</think>' in content -%}
                        {%- set content = content.split('</think>')[-1] -%}
                    {%- endif -%}
                    {{- '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' -}}
                {%- endif -%}
                {%- if message['role'] == 'tool' -%}
                    {%- set ns.is_tool_outputs = true -%}
                    {%- if ns.is_output_first -%}
                        {{- '<｜tool▁outputs▁begin｜>' -}}
                        {%- set ns.is_output_first = false -%}
                    {%- endif -%}
                    {{- '\n<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>' -}}
                {%- endif -%}
            {%- endfor -%}
            {{- flush_tool_outputs() -}}
            {%- if add_generation_prompt and not ns.is_tool_outputs -%}
                {{- '<｜Assistant｜><think>\n' -}}
            {%- endif -%}
            """#),
        Entry(name: "qwen", summary: "Qwen 2.5; calls in Hermes <tool_call> markup", source: #"""
            {%- if tools %}
                {{- '<|im_start|>system\n' }}
                {%- if messages[0]['role'] == 'system' %}
                    {{- messages[0]['content'] }}
                {%- else %}
                    {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
                {%- endif %}
                {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
                {%- for tool in tools %}
                    {{- "\n" }}
                    {{- tool | tojson }}
                {%- endfor %}
                {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
            {%- else %}
                {%- if messages[0]['role'] == 'system' %}
                    {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
                {%- else %}
                    {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
                {%- endif %}
            {%- endif %}
            {%- for message in messages %}
                {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
                    {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
                {%- elif message.role == "assistant" %}
                    {{- '<|im_start|>' + message.role }}
                    {%- if message.content %}
                        {{- '\n' + message.content }}
                    {%- endif %}
                    {%- for tool_call in message.tool_calls %}
                        {%- if tool_call.function is defined %}
                            {%- set tool_call = tool_call.function %}
                        {%- endif %}
                        {{- '\n<tool_call>\n{"name": "' }}
                        {{- tool_call.name }}
                        {{- '", "arguments": ' }}
                        {{- tool_call.arguments | tojson }}
                        {{- '}\n</tool_call>' }}
                    {%- endfor %}
                    {{- '<|im_end|>\n' }}
                {%- elif message.role == "tool" %}
                    {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
                        {{- '<|im_start|>user' }}
                    {%- endif %}
                    {{- '\n<tool_response>\n' }}
                    {{- message.content }}
                    {{- '\n</tool_response>' }}
                    {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
                        {{- '<|im_end|>\n' }}
                    {%- endif %}
                {%- endif %}
            {%- endfor %}
            {%- if add_generation_prompt %}
                {{- '<|im_start|>assistant\n' }}
            {%- endif %}
            """#),
    ]
}

extension BuiltInTemplate {
    /// The built-in template called `name`, any case; an unknown name is an error that lists them.
    package static func named(_ name: String) throws -> Entry {
        guard let entry = all.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw LooplError(.invalidConfiguration, "There is no built-in chat template called '\(name)'; the names are \(all.map(\.name).joined(separator: ", ")) (loopl template list), or give a template file.")
        }
        return entry
    }

    /// Whether a `--chat-template` or `chatTemplate` value is a file rather than a name
    /// (``BackendOverrides/isTemplateFile(_:)``, which the configuration reads without the templates).
    package static func isFile(_ value: String) -> Bool { BackendOverrides.isTemplateFile(value) }

    /// The Jinja source a value gives: the file's text, or the named built-in template's.
    package static func source(of value: String) throws -> String {
        guard isFile(value) else { return try named(value).source }
        guard let text = try? String(contentsOfFile: value, encoding: .utf8) else {
            throw LooplError(.invalidConfiguration, "Cannot read the chat template file \(value).")
        }
        return text
    }
}

extension ConfigSection {
    /// The chat template a backend's section chooses: `chatTemplate`, a built-in name, or
    /// `chatTemplateFile`, a file's text; nil when it has neither (the model's own).
    package mutating func chatTemplate() throws -> String? {
        let name = try optionalString("chatTemplate")
        let file = try optionalPath("chatTemplateFile")
        switch (name, file) {
        case (nil, nil): return nil
        case (let name?, nil): return try BuiltInTemplate.named(name).source
        case (nil, let path?):
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw LooplError(.invalidConfiguration, "Cannot read the chat template file \(path) (chatTemplateFile).")
            }
            return text
        case (_?, _?): throw error("give 'chatTemplate' (a built-in name) or 'chatTemplateFile', not both")
        }
    }
}
