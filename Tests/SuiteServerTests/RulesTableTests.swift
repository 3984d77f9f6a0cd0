import Foundation
import SuiteCore
import SuiteHost
import SuiteServer
import Testing

/// The allow/deny tables in RulesCases/: each `NAME.rules` with its `NAME.yaml`, run offline as `suite rules test`
/// runs them.
@Suite("Firestore's rules language: the allow/deny tables")
struct RulesTableTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "RulesCases")

    /// The names that have both a rules file and a cases file.
    static var tables: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".rules") }.map { String($0.dropLast(".rules".count)) }
            .filter { files.contains($0 + ".yaml") }.sorted()
    }

    static func load(_ name: String) throws -> (FirestoreRules, RulesTestCases) {
        let rules = try FirestoreRules(contentsOf: folder.appendingPathComponent(name + ".rules").path)
        let cases = try ServerModule.rulesTestCases(file: folder.appendingPathComponent(name + ".yaml").path)
        return (rules, cases)
    }

    @Test("every case is decided as Firestore decides it", arguments: tables)
    func table(_ name: String) async throws {
        let (rules, cases) = try Self.load(name)
        let results = await cases.run(rules)
        #expect(!results.isEmpty)
        for result in results where !result.passed {
            Issue.record(
                "\(name): '\(result.name)' expected \(result.expected ? "allow" : "deny"): \(result.decision.reason)")
        }
        // Both answers occur: a table of only allows (or only denies) could pass with a constant evaluator.
        #expect(results.contains { $0.expected } && results.contains { !$0.expected })
    }

    @Test("the tables hold at least 80 cases, with allows and denies")
    func size() throws {
        var total = 0
        for name in Self.tables { total += try Self.load(name).1.cases.count }
        #expect(total >= 80, "only \(total) cases")
    }

    @Test("a case that expects the wrong answer fails: the table can catch a wrong decision")
    func flippedExpectationsFail() async throws {
        let (rules, cases) = try Self.load("example")
        var flipped = cases
        for index in flipped.cases.indices { flipped.cases[index].expectAllow.toggle() }
        let results = await flipped.run(rules)
        #expect(results.allSatisfy { !$0.passed })
    }

    @Test("the cases file's mistakes are named: unknown keys, a missing operation, a bad expect")
    func badCases() throws {
        func message(_ json: JSONValue) -> String? {
            do {
                _ = try RulesTestCases(json: json)
                return nil
            } catch let error as SuiteError {
                return error.message + " " + (error.hint ?? "")
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["cases": [["get": "users/a", "expct": "allow"]]])?.contains("expect") == true)
        #expect(message(["cases": [["name": "x", "expect": "allow"]]])?.contains("one operation") == true)
        #expect(message(["cases": [["get": "users/a", "expect": "maybe"]]])?.contains("allow or deny") == true)
        #expect(message(["cases": []])?.contains("no cases") == true)
        #expect(message(["casez": []])?.contains("cases") == true)
    }
}

/// The rules files in RulesCases/refusals/ use what the subset does not: each is refused at load, naming its line and
/// column.
@Suite("Firestore's rules language: files refused at load")
struct RulesRefusalTests {
    static let folder = RulesTableTests.folder.appendingPathComponent("refusals")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".rules") }
            .sorted()
    }

    @Test("refused with FILE:LINE:COLUMN and a hint", arguments: files)
    func refused(_ file: String) throws {
        let path = Self.folder.appendingPathComponent(file).path
        do {
            _ = try FirestoreRules(contentsOf: path)
            Issue.record("\(file) loaded")
        } catch let error as ServerError {
            let place = try Regex(#"^.+\.rules:[0-9]+:[0-9]+: "#)
            #expect(error.message.prefixMatch(of: place) != nil, "\(error.message)")
            #expect(error.hint?.isEmpty == false)
        }
    }

    @Test("there are refusals to check")
    func present() { #expect(Self.files.count >= 10) }
}
