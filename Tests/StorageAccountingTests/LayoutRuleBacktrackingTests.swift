import Testing

@testable import StorageAccounting

/// Layout rules whose wildcards could be tried in exponentially many ways on one path (`*a*a*a…b`, `**/**/…`):
/// matching them used to backtrack without end, a hang of the scan on one file (found by `make fuzz`, harness
/// `storage-layout`; Tools/fuzz/FINDINGS.md). They now finish, with the same answers.
@Suite("Layout rules that backtrack")
struct LayoutRuleBacktrackingTests {
    @Test func manyStarsInOneSegmentFinishOnALongName() throws {
        let rule = try LayoutRule(String(repeating: "*a", count: 12) + "*b")
        let name = String(repeating: "a", count: 200)
        #expect(rule.match(StoragePath(name)) == nil)
        #expect(rule.match(StoragePath(name + "b")) != nil)
    }

    @Test func manyAnyDepthSegmentsFinishOnADeepPath() throws {
        let rule = try LayoutRule(String(repeating: "**/", count: 12) + "{groupId}/x/{contentId}.{ext}")
        let deep = Array(repeating: "d", count: 150).joined(separator: "/")
        #expect(rule.match(StoragePath(deep + "/y")) == nil)
        let match = rule.match(StoragePath(deep + "/g/x/c.txt"))
        #expect(match?.groupId == "g" && match?.contentId == "c" && match?.ext == "txt")
    }

    @Test func capturesAfterAFailedBranchAreTheMatchingBranchOnly() throws {
        // Failures are remembered once matching is long; the captures must still come from the branch that matched.
        let rule = try LayoutRule(String(repeating: "*a", count: 10) + "{contentId}.{ext}")
        let match = rule.match(StoragePath(String(repeating: "a", count: 60) + "z.png"))
        #expect(match?.ext == "png")
        #expect(match?.contentId == "z")
    }
}
