@testable import LooplAPI
import Testing

@Suite struct APIKeyTests {
    @Test func placeholder() {}
}
