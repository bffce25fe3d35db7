// swift-tools-version:6.0
import PackageDescription

// An agent with one custom tool, on Loopl's in-process backend and its default model.
// Run `scripts/agent` (or `scripts/bootstrap`) in the repository once, then `swift run -c release WeatherAgent` here.
let package = Package(
    name: "WeatherAgent",
    dependencies: [.package(name: "Loopl", path: "../..")],
    targets: [
        .executableTarget(name: "WeatherAgent", dependencies: [
            .product(name: "Loopl", package: "Loopl"),
            .product(name: "LooplLlama", package: "Loopl"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
