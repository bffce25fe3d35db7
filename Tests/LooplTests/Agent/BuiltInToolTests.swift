import Foundation
import Loopl
import Testing

@Suite struct BuiltInToolTests {
    @Test(arguments: [
        ("17*23", "391"), ("1 + 2 * 3", "7"), ("(1 + 2) * 3", "9"), ("2^10", "1024"), ("2**3**2", "512"),
        ("-3^2", "-9"), ("10 / 4", "2.5"), ("7 % 3", "1"), ("200*15%", "30"), ("15%", "0.15"), ("(50% + 1) * 2", "3"), ("7 %3", "1"), ("sqrt(16)", "4"), ("abs(-2.5)", "2.5"),
        ("max(1, 5, 3)", "5"), ("min(4,2)", "2"), ("round(2.6)", "3"), ("floor(-1.5)", "-2"), ("ceil(1.2)", "2"),
        ("1e3 + 1", "1001"), ("1_000 * 3", "3000"), ("2 × 3 ÷ 4", "1.5"), ("1/3", "0.333333333333"), ("pi", "3.14159265359"),
    ])
    func calculatorEvaluates(_ expression: String, _ expected: String) async throws {
        #expect(try await CalculatorTool().call(["expression": .string(expression)]) == expected)
    }

    @Test(arguments: ["", "1 +", "(1 + 2", "1 / 0", "5 % 0", "sqrt(-1)", "foo(1)", "import os", "1 2", "2^99999",
                      String(repeating: "(", count: 500) + "1" + String(repeating: ")", count: 500), "__import__('os')"])
    func calculatorRefuses(_ expression: String) async {
        await #expect(throws: LooplError.self) { try await CalculatorTool().call(["expression": .string(expression)]) }
    }

    @Test func calculatorNeedsAString() async {
        await #expect(throws: LooplError.self) { try await CalculatorTool().call(["expression": 5]) }
    }

    @Test func dateTimeUsesTheClock() async throws {
        let tool = DateTimeTool(now: { Date(timeIntervalSince1970: 0) })
        #expect(try await tool.call([:]).contains("1970-01-01T00:00:00Z"))
    }

    @Test func fileToolsStayInsideTheRoot() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-files-\(UUID())")
        let root = base.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try "inside".write(to: root.appendingPathComponent("sub/a.txt"), atomically: true, encoding: .utf8)
        try "secret".write(to: base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("out").path, withDestinationPath: base.path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("in").path, withDestinationPath: root.appendingPathComponent("sub").path)
        let fileRoot = try FileRoot(root.path)
        let read = ReadFileTool(root: fileRoot)
        let list = ListFilesTool(root: fileRoot)
        #expect(try await read.call(["path": "sub/a.txt"]) == "inside")
        #expect(try await read.call(["path": "./in/a.txt"]) == "inside")
        // `out` leads outside the root: it is listed as a name, without saying what is there.
        #expect(try await list.call([:]) == "in/\nout\nsub/")
        for escape in ["../secret.txt", "sub/../../secret.txt", base.appendingPathComponent("secret.txt").path, "out/secret.txt", "~/x", "out"] {
            await #expect(throws: LooplError.self, "\(escape)") { try await read.call(["path": .string(escape)]) }
        }
        await #expect(throws: LooplError.self) { try await list.call(["path": "out"]) }
        #expect(throws: LooplError.self) { try FileRoot(base.appendingPathComponent("secret.txt").path) }
    }
}
