/// The name of a family of tool-call markup that ``ToolCallParser`` understands.
public struct ToolCallFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Recognise the family from the text itself: every family's tagged markup, plus bare JSON
    /// and pythonic calls at the start of the text.
    public static let auto = ToolCallFormat(rawValue: "auto")
    /// Hermes, Qwen 2.5 and Qwen 3: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    public static let hermes = ToolCallFormat(rawValue: "hermes")
    /// Qwen3-Coder, Qwen3.5: `<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>`.
    public static let qwen3Coder = ToolCallFormat(rawValue: "qwen3-coder")
    /// GLM 4.5 and later: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`.
    public static let glm45 = ToolCallFormat(rawValue: "glm-4.5")
    /// Llama 3.x: bare `{"name": ..., "parameters": {...}}` and `<|python_tag|>`.
    public static let llama3 = ToolCallFormat(rawValue: "llama3")
    /// Pythonic calls, `[f(a=1), g()]` (Llama 3.2 pythonic, Llama 4 `<|python_start|>`).
    public static let pythonic = ToolCallFormat(rawValue: "pythonic")
    /// Mistral: `[TOOL_CALLS][{...}]` and `[TOOL_CALLS]NAME[ARGS]{...}`; thinking in `[THINK]`.
    public static let mistral = ToolCallFormat(rawValue: "mistral")
    /// Functionary v3.1: `<function=NAME>{...}</function>` and `<|python_tag|>` code.
    public static let functionaryV31 = ToolCallFormat(rawValue: "functionary-v3.1")
    /// Functionary v3.2: `>>>NAME\n{...}`, with `all` for text.
    public static let functionaryV32 = ToolCallFormat(rawValue: "functionary-v3.2")
    /// FireFunction v2: `functools[{...}]`.
    public static let fireFunction = ToolCallFormat(rawValue: "firefunction")
    /// Phi-4: `functools[{...}]` and `<|tool_call|>[...]<|/tool_call|>`.
    public static let phi4 = ToolCallFormat(rawValue: "phi-4")
    /// Granite 3.x: `<|tool_call|>[{...}]`; Granite 4: `<tool_call>`.
    public static let granite = ToolCallFormat(rawValue: "granite")
    /// DeepSeek R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and fenced JSON.
    public static let deepSeekR1 = ToolCallFormat(rawValue: "deepseek-r1")
    /// DeepSeek V3: as R1.
    public static let deepSeekV3 = ToolCallFormat(rawValue: "deepseek-v3")
    /// DeepSeek V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`.
    public static let deepSeekV31 = ToolCallFormat(rawValue: "deepseek-v3.1")
    /// DeepSeek V3.2: `<｜DSML｜function_calls>` with `invoke` and `parameter` tags.
    public static let deepSeekV32 = ToolCallFormat(rawValue: "deepseek-v3.2")
    /// Command R7B: `<|START_ACTION|>[...]<|END_ACTION|>`; thinking in `<|START_THINKING|>`.
    public static let commandR7B = ToolCallFormat(rawValue: "command-r7b")
    /// Command R+: ``Action: ```json [...] ``` ``.
    public static let commandRPlus = ToolCallFormat(rawValue: "command-r-plus")
    /// GPT-OSS harmony: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>`.
    public static let gptOSS = ToolCallFormat(rawValue: "gpt-oss")
    /// Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}`.
    public static let kimiK2 = ToolCallFormat(rawValue: "kimi-k2")
    /// Kimi K3: `<|open|>tools<|sep|><|open|>call tool="F" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>…`.
    public static let kimiK3 = ToolCallFormat(rawValue: "kimi-k3")
    /// MiniMax M2: `<minimax:tool_call><invoke name="F"><parameter name="P">V</parameter></invoke>`.
    public static let minimaxM2 = ToolCallFormat(rawValue: "minimax-m2")
    /// MiniMax M1: `<tool_calls>{...}\n{...}</tool_calls>`.
    public static let minimaxM1 = ToolCallFormat(rawValue: "minimax-m1")
    /// MiniMax M3: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="F">]<]minimax[>[<P>V]<]minimax[>[</P>…`, values nested as XML.
    public static let minimaxM3 = ToolCallFormat(rawValue: "minimax-m3")
    /// Muse Glimmer: `to=NAME<|message|><atem:function_calls><atem:invoke name="F">…`; `to=self` is thinking.
    public static let muse = ToolCallFormat(rawValue: "muse")
    /// Jamba: `<tool_calls>[...]</tool_calls>`.
    public static let jamba = ToolCallFormat(rawValue: "jamba")
    /// Apriel: `<tool_calls>[...]</tool_calls>` and `[BEGIN FINAL RESPONSE]`.
    public static let apriel = ToolCallFormat(rawValue: "apriel")
    /// LFM2: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
    public static let lfm2 = ToolCallFormat(rawValue: "lfm2")
    /// Gemma 4: `<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>`.
    public static let gemma4 = ToolCallFormat(rawValue: "gemma4")
    /// FunctionGemma: `<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>`.
    public static let functionGemma = ToolCallFormat(rawValue: "functiongemma")
    /// Seed-OSS: `<seed:tool_call><function=NAME><parameter=P>V</parameter></function></seed:tool_call>`.
    public static let seedOSS = ToolCallFormat(rawValue: "seed-oss")
    /// Apertus: `<|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|>`.
    public static let apertus = ToolCallFormat(rawValue: "apertus")
    /// Nemotron: `<TOOLCALL>[...]</TOOLCALL>` (Nano v2) and `<tool_call><function=…>` (Nemotron 3).
    public static let nemotron = ToolCallFormat(rawValue: "nemotron")
    /// InternLM 2: `<|action_start|><|plugin|>{...}<|action_end|>`.
    public static let internLM = ToolCallFormat(rawValue: "internlm")
    /// Generic JSON: a bare call, `{"tool_call": {...}}` or `{"tool_calls": [...]}`.
    public static let generic = ToolCallFormat(rawValue: "generic")

    /// GigaChat 3: `<|function_call|>{...}` (3.1) and `function call<|role_sep|>{...}` (3.0).
    public static let gigaChat = ToolCallFormat(rawValue: "gigachat")
    /// Solar Open: `<|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{...}<|tool_call:end|><|calls|>`.
    public static let solarOpen = ToolCallFormat(rawValue: "solar-open")
    /// MiniCPM 5: `<function name="F"><param name="P">V</param></function>`.
    public static let miniCPM5 = ToolCallFormat(rawValue: "minicpm5")
    /// Hunyuan 3: `<tool_calls:opensource><tool_call:opensource>NAME<tool_sep:opensource><arg_key:opensource>…`.
    public static let hunyuan3 = ToolCallFormat(rawValue: "hunyuan3")

    /// Every named format, `.auto` first.
    public static var allCases: [ToolCallFormat] { [.auto] + Families.all.map(\.format) }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
