import Testing

@testable import SuiteServer

@Suite("Path rules: which documents a caller may read and write")
struct AccessRulesTests {
    static let ana = ServerAccounts.Account(uid: "ana", isAdmin: false)
    static let bob = ServerAccounts.Account(uid: "bob", isAdmin: false)

    @Test("{uid} binds the owner, ** covers the segment itself and everything below, first match wins")
    func standard() throws {
        let rules = AccessRules.standard
        for path in ["users/ana", "users/ana/items/1", "workInfo/ana/days/2026-11-28"] {
            #expect(rules.allows(Self.ana, write: true, path: path), "\(path)")
            #expect(!rules.allows(Self.bob, write: false, path: path), "\(path)")
        }
        for path in ["users", "user/ana", "users2/ana", "", "other/ana"] {
            #expect(!rules.allows(Self.ana, write: false, path: path), "\(path)")
        }
        #expect(rules.allows(ServerAccounts.Account(uid: "root", isAdmin: true), write: true, path: "anything/at/all"))
    }

    @Test("* and {name} take one segment, literals must be equal, a pattern without ** takes exactly its length")
    func oneSegment() throws {
        let rules = AccessRules([
            try .init(match: "public/*", read: .signedIn, write: .nobody),
            try .init(match: "rooms/{room}/members/{uid}", read: .owner, write: .owner),
            try .init(match: "open/**", read: .signedIn, write: .signedIn),
            try .init(match: "open/closed", read: .nobody, write: .nobody),
        ])
        #expect(rules.allows(Self.bob, write: false, path: "public/x"))
        #expect(!rules.allows(Self.bob, write: true, path: "public/x"))
        #expect(!rules.allows(Self.bob, write: false, path: "public"))
        #expect(!rules.allows(Self.bob, write: false, path: "public/x/y"))
        #expect(rules.allows(Self.ana, write: true, path: "rooms/r1/members/ana"))
        #expect(!rules.allows(Self.bob, write: false, path: "rooms/r1/members/ana"))
        #expect(!rules.allows(Self.ana, write: false, path: "rooms/r1/member/ana"))
        #expect(!rules.allows(Self.ana, write: false, path: "rooms/r1/members/ana/more"))
        // The first matching rule decides: open/** lets in before open/closed is reached.
        #expect(rules.allows(Self.bob, write: true, path: "open/closed"))
        #expect(rules.allows(Self.bob, write: true, path: "open"))
    }

    @Test("malformed patterns are refused")
    func malformed() {
        #expect(throws: ServerError.self) { try AccessRules.Rule(match: "a//b", read: .signedIn, write: .nobody) }
        #expect(throws: ServerError.self) { try AccessRules.Rule(match: "a/**/b", read: .signedIn, write: .nobody) }
        #expect(throws: ServerError.self) { try AccessRules.Rule(match: "users/*", read: .owner, write: .owner) }
        #expect(throws: ServerError.self) { try AccessRules.Rule(match: "", read: .signedIn, write: .nobody) }
    }
}

@Suite("Bearer tokens: the Authorization header's scheme in any case, spaces and tabs around the token")
struct BearerTokenTests {
    @Test("the token is what follows the scheme and one space, trimmed; another scheme or none is nil")
    func parsing() {
        let cases: [(String, String?)] = [
            ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER abc", "abc"), ("bEaReR abc", "abc"),
            ("Bearer  \tabc \t ", "abc"), ("Bearer suite_x-Y_z", "suite_x-Y_z"), ("Bearer tøken", "tøken"),
            ("Bearer ", ""), ("Bearer \t ", ""), ("Bearer", nil), ("Bearer\tabc", nil), ("Basic abc", nil),
            ("Bearerabc", nil), ("", nil), (" Bearer abc", nil), ("Bearer a b", "a b"),
        ]
        for (header, token) in cases {
            #expect(SuiteServer.bearerToken(header) == token, "\(header)")
        }
    }
}
