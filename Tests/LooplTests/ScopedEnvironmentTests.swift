import Foundation
import LooplTestKit
import Testing

/// Tests set process-wide variables only in scopes that put the old values back.
@Suite struct ScopedEnvironmentTests {
    static func value(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }

    @Test func aScopePutsBackTheOldValueAndLeavesAnUnsetVariableUnset() async {
        await withEnvironment(["LOOPL_TEST_SCOPE_SET": "before"]) {
            await withEnvironment(["LOOPL_TEST_SCOPE_SET": "inside", "LOOPL_TEST_SCOPE_UNSET": "inside"]) {
                #expect(Self.value("LOOPL_TEST_SCOPE_SET") == "inside" && Self.value("LOOPL_TEST_SCOPE_UNSET") == "inside")
            }
            #expect(Self.value("LOOPL_TEST_SCOPE_SET") == "before", "a scope did not put back the value it found")
            #expect(Self.value("LOOPL_TEST_SCOPE_UNSET") == nil, "a scope left a variable set that was unset before")
            await withEnvironment(["LOOPL_TEST_SCOPE_SET": nil]) { #expect(Self.value("LOOPL_TEST_SCOPE_SET") == nil) }
            #expect(Self.value("LOOPL_TEST_SCOPE_SET") == "before")
        }
        #expect(Self.value("LOOPL_TEST_SCOPE_SET") == nil)
    }
}
