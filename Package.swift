// swift-tools-version:6.0
import PackageDescription

// Set LOOPL_WITHOUT_LLAMA=1 to build and test the core on a machine without llama.cpp.
let withLlama = Context.environment["LOOPL_WITHOUT_LLAMA"] == nil

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

var targets: [Target] = [
    .target(name: "CLooplSpawn"),
    .target(name: "LooplJSON", swiftSettings: strict),
    .target(name: "LooplJinja", dependencies: ["LooplJSON"], swiftSettings: strict),
    .testTarget(name: "LooplJinjaTests", dependencies: ["LooplJinja"], swiftSettings: strict),
    .target(name: "Loopl", dependencies: ["CLooplSpawn", "LooplJSON", "LooplJinja"], swiftSettings: strict),
    .target(name: "LooplServer", dependencies: ["Loopl", "LooplHTTP"], swiftSettings: strict),
    .target(name: "LooplStdio", dependencies: ["Loopl"], swiftSettings: strict),
    .target(name: "LooplMCP", dependencies: ["Loopl", "LooplHTTP"], swiftSettings: strict),
    // Loopl's own HTTP/1.1 server, for `loopl serve`, and its HTTP client, for servers and MCP servers.
    // It depends on nothing of the project: Wire/ (heads, headers, chunks, sockets), Server/, Client/.
    .target(name: "LooplHTTP", swiftSettings: strict),
    .testTarget(name: "LooplHTTPTests", dependencies: ["LooplHTTP"], swiftSettings: strict),
    // The HTTP APIs that `loopl serve` speaks (OpenAI chat completions, completions and responses, Anthropic messages,
    // the runs of the page), over any backend.
    .target(name: "LooplAPI", dependencies: ["Loopl", "LooplHTTP", "LooplWeb"], swiftSettings: strict),
    // The transcript page that `loopl serve` serves at `/`, its files built into the binary.
    .target(name: "LooplWeb", exclude: ["README.md"],
            resources: ["index.html", "style.css", "app.js", "api.js", "view.js", "transcript.js", "favicon.svg"].map { .embedInCode("Page/" + $0) },
            swiftSettings: strict),
    .testTarget(name: "LooplAPITests", dependencies: ["LooplAPI"], swiftSettings: strict),
    .testTarget(name: "LooplMCPTests", dependencies: ["LooplMCP", "LooplHTTP", "LooplTestKit"], swiftSettings: strict),
    .target(name: "LooplTestKit", dependencies: ["Loopl"], swiftSettings: strict),
    .target(name: "LooplTerminal", dependencies: ["Loopl"], swiftSettings: strict),
    .target(name: "LooplFuzz", dependencies: ["Loopl", "LooplStdio", "LooplServer", "LooplHTTP"], swiftSettings: strict),
    .testTarget(name: "LooplFuzzTests", dependencies: ["LooplFuzz"], swiftSettings: strict),
    .testTarget(name: "LooplTerminalTests", dependencies: ["LooplTerminal"], exclude: ["Golden"], swiftSettings: strict),
    .testTarget(name: "LooplTests", dependencies: ["Loopl", "LooplTestKit"], swiftSettings: strict),
    // A host process for the lifecycle, soak and kill tests (Sources/loopl-test-host/main.swift).
    .executableTarget(name: "loopl-test-host",
                      dependencies: ["LooplServer", "LooplStdio", "LooplTestKit"] + (withLlama ? ["LooplLlama"] : []),
                      swiftSettings: strict + (withLlama ? [.define("LOOPL_WITH_LLAMA")] : [])),
    // Without llama.cpp the stdio tests run on the Python reference worker alone.
    .testTarget(name: "LooplStdioTests",
                dependencies: ["LooplStdio", "LooplTestKit"] + (withLlama ? ["LooplLlama", "loopl"] : []),
                swiftSettings: strict + (withLlama ? [.define("LOOPL_WITH_LLAMA")] : [])),
    .testTarget(name: "LooplServerTests",
                dependencies: ["LooplServer", "LooplHTTP", "LooplTestKit", "loopl-test-host"] + (withLlama ? ["LooplLlama"] : []),
                swiftSettings: strict),
]
// LOOPL_FUZZ=1 adds the libFuzzer entry point, which links only with `--sanitize=fuzzer` (scripts/fuzz).
if Context.environment["LOOPL_FUZZ"] != nil {
    targets.append(.executableTarget(name: "loopl-fuzz", dependencies: ["LooplFuzz"], swiftSettings: strict))
}
var products: [Product] = [
    .library(name: "Loopl", targets: ["Loopl"]),
    // The Jinja engine alone, with the JSON values it renders.
    .library(name: "LooplJinja", targets: ["LooplJinja"]),
    // ModelConformance, the suite every backend passes, and ScriptedModel, for backends and apps of your own.
    .library(name: "LooplTestKit", targets: ["LooplTestKit"]),
]

if withLlama {
    targets += [
        .systemLibrary(name: "CLlama", pkgConfig: "llama",
                       providers: [.apt(["(run scripts/bootstrap: it builds llama.cpp and its llama.pc)"])]),
        .target(name: "LooplLlama", dependencies: ["Loopl", "CLlama"], swiftSettings: strict),
        // The speed harness of `loopl bench`, with its goals as data (goals.json, also read by scripts/bench-goals).
        .target(name: "LooplBench", dependencies: ["Loopl", "LooplHTTP", "LooplLlama", "LooplServer"],
                resources: [.embedInCode("goals.json")], swiftSettings: strict),
        .testTarget(name: "LooplBenchTests", dependencies: ["LooplBench", "LooplTestKit"], swiftSettings: strict),
        .target(name: "LooplCLI", dependencies: ["Loopl", "LooplAPI", "LooplBench", "LooplHTTP", "LooplLlama", "LooplMCP", "LooplServer",
                                                "LooplStdio", "LooplTerminal"],
                swiftSettings: strict),
        .executableTarget(name: "loopl", dependencies: ["LooplCLI"], swiftSettings: strict),
        .testTarget(name: "LooplLlamaTests", dependencies: ["LooplLlama", "CLlama", "LooplTestKit"], swiftSettings: strict),
        .testTarget(name: "LooplCLITests", dependencies: ["LooplCLI", "loopl", "LooplTestKit"], exclude: ["Golden"], swiftSettings: strict),
        .testTarget(name: "LooplReliabilityTests", dependencies: ["Loopl", "LooplTestKit", "loopl-test-host", "loopl"],
                    swiftSettings: strict),
    ]
    products += [
        .library(name: "LooplLlama", targets: ["LooplLlama"]),
        .executable(name: "loopl", targets: ["loopl"]),
    ]
}
products += [
    .library(name: "LooplMCP", targets: ["LooplMCP"]),
    .library(name: "LooplServer", targets: ["LooplServer"]),
    .library(name: "LooplStdio", targets: ["LooplStdio"]),
    .library(name: "LooplTerminal", targets: ["LooplTerminal"]),
]

let package = Package(
    name: "Loopl",
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
