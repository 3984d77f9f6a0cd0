import Testing

@testable import SuiteCore

/// "Did you mean …?" for misspelled keys, values and commands.
@Suite struct SuggestionTests {
    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(Suggestion.editDistance(Array("dcos"), Array("docs")) == 1)
        #expect(Suggestion.editDistance(Array("strat"), Array("start")) == 1)
        #expect(Suggestion.editDistance(Array("engien"), Array("engine")) == 1)
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(Suggestion.editDistance(Array(""), Array("abc")) == 3)
        #expect(Suggestion.editDistance(Array("abc"), Array("abc")) == 0)
    }

    @Test func theClosestKnownWordWithinAThirdOfTheLength() {
        let commands = ["status", "docs", "cache", "analytics", "storage", "work", "serve", "users", "sync"]
        #expect(Suggestion.closest(to: "dcos", among: commands) == "docs")
        #expect(Suggestion.closest(to: "stauts", among: commands) == "status")
        #expect(Suggestion.closest(to: "Analitics", among: commands) == "analytics")
        #expect(Suggestion.closest(to: "zzzz", among: commands) == nil)
        #expect(Suggestion.closest(to: "page_size", among: ["page-size", "pool-size"]) == "page-size")
    }

    @Test func theHintNamesTheMatchAndTheList() {
        #expect(
            Suggestion.didYouMean("engien", among: ["engine", "options"], what: "keys")
                == "did you mean 'engine'? Known keys: engine, options")
        #expect(Suggestion.didYouMean("zzz", among: ["engine", "options"]) == "known values: engine, options")
    }
}
