import Foundation
import LooplJinja
import LooplJSON
import Testing

/// A template cannot make the host allocate past ``TemplateLimits/maxAllocationBytes``: each way
/// of building a huge value in one step stops with the budget's error, fast.
@Suite struct TemplateBudgetTests {
    /// Each of these once ran the host out of memory (or into a hang) before any other limit held.
    static let attacks = [
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s | length }}",
        "{% set s = 'abcdefgh' * 1000000 %}{{ s | replace('', 'xxxxxxxx') | length }}",
        "{% set s = 'abcdefgh' * 1000000 %}{{ s.replace('', 'xxxxxxxx') | length }}",
        "{% set l = range(1000000) | list %}{{ l | join('x' * 100) | length }}",
        "{{ [1, 2, 3] | batch(500000000, 0) | length }}",
        "{{ ('\\t' * 1000000).expandtabs(100000000) | length }}",
        "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}",
    ]

    /// What builds each attack's huge value; the error names it.
    static let builders = ["'~'", "'+'", "'replace'", "'replace'", "'join'", "'batch'", "'expandtabs'", "'+'"]

    @Test(arguments: zip(attacks, builders)) func hugeValuesStopWithTheBudgetError(source: String, builder: String) throws {
        let start = Date()
        let template = try JinjaTemplate(source: source)
        #expect {
            try template.render(context: [:])
        } throws: { error in
            let message = (error as? JinjaError)?.message ?? ""
            return message.contains("allocation budget") && message.contains(builder)
        }
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func valuesWithinTheBudgetStillRender() throws {
        let doubling = "{% set ns = namespace(s='x') %}{% for i in range(20) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}"
        #expect(try JinjaTemplate(source: doubling).render(context: [:]) == "1048576")
        #expect(try JinjaTemplate(source: "{{ 'a\\tb'.expandtabs(4) }}|{{ 'ab' | replace('', '-') }}|{{ [1,2,3] | batch(2, 0) | list }}")
            .render(context: [:]) == "a   b|-a-b-|[[1, 2], [3, 0]]")
    }

    @Test func theBudgetIsTheLimitsOwn() throws {
        let small = TemplateLimits(maxAllocationBytes: 1000)
        let template = try JinjaTemplate(source: "{% set s = 'x' * 600 ~ 'y' * 600 %}{{ s }}", limits: small)
        #expect(throws: JinjaError.self) { try template.render(context: [:]) }
        #expect(try JinjaTemplate(source: "{{ ('x' * 600 ~ 'y' * 600) | length }}").render(context: [:]) == "1200")
    }
}
