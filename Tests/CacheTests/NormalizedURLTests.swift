import Foundation
import Testing

@testable import Cache

@Suite("NormalizedURL's own parser and URLComponents give one spelling")
struct NormalizedURLTests {
    /// The spelling through the parser (or its fallback) and through URLComponents alone; both errors or both equal.
    static func expectSameAsComponents(_ string: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let ours = Result { try NormalizedURL(string) }
        let model = Result { try NormalizedURL.normalizedThroughComponents(string) }
        switch (ours, model) {
        case (.success(let a), .success(let b)):
            #expect(a.text == b.text, "\(string.debugDescription)", sourceLocation: sourceLocation)
            #expect(
                a.queryItems.map { "\($0.name)=\($0.value ?? "nil")" }
                    == b.queryItems.map { "\($0.name)=\($0.value ?? "nil")" }, "\(string.debugDescription)",
                sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect("\(a)" == "\(b)", "\(string.debugDescription)", sourceLocation: sourceLocation)
        default:
            Issue.record(
                "\(string.debugDescription): ours \(ours), URLComponents \(model)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "edge cases: escapes, default ports, IPv6 hosts, user info, fragments, empty query items, order",
        arguments: [
            ("https://api.example.com/a%2fb%7e%41?q=%7a%2F", "https://api.example.com/a%2Fb~A?q=z%2F"),
            ("HTTP://Example.COM:80/Path", "http://example.com/Path"),
            ("https://example.com:443", "https://example.com/"),
            ("http://example.com:443/", "http://example.com:443/"),
            ("https://example.com:0080/", "https://example.com:80/"),
            ("https://example.com:/x", "https://example.com/x"),
            ("https://[::1]:8443/a", "https://[::1]:8443/a"),
            ("https://[FE80::1]:443/", "https://[fe80::1]/"),
            ("https://User:Pa%3asS@Example.com/", "https://User:Pa%3AsS@example.com/"),
            ("https://@example.com/", "https://@example.com/"),
            ("https://example.com/a#frag?x", "https://example.com/a"),
            ("https://example.com/a?#", "https://example.com/a"),
            ("https://example.com/a?&&b=&c&=d", "https://example.com/a?=d&b=&c"),
            ("https://example.com/?b=2&a=2&a=1&B=0", "https://example.com/?B=0&a=1&a=2&b=2"),
            ("https://example.com/?q=a?b/c:d@e", "https://example.com/?q=a?b/c:d@e"),
            ("https://ex%41mple.com/", "https://exAmple.com/"),
            ("https://example.com/a b?c=d e", "https://example.com/a%20b?c=d%20e"),
            ("https://example.com/ä", "https://example.com/%C3%A4"),
            ("https://example.com/100%", "https://example.com/100%25"),
        ])
    func edgeCases(url: String, expected: String) throws {
        #expect(try NormalizedURL(url).text == expected)
        Self.expectSameAsComponents(url)
    }

    @Test(
        "invalid URLs are errors with a hint",
        arguments: [
            "", "example.com/a", "https:example.com", "https:///a", "ftp://example.com/", "https://h:8a/",
            "https://h:1:2/",
            "https://[::1]x/", " https://example.com/", "1http://example.com/", "mailto:someone@example.com",
        ])
    func invalidURLs(url: String) {
        #expect {
            try NormalizedURL(url)
        } throws: { error in
            guard let error = error as? CacheError else { return false }
            return error.code == .invalidInput && error.hint?.isEmpty == false
        }
        Self.expectSameAsComponents(url)
    }

    @Test("a URL in RFC 3986's characters is split without URLComponents; anything else goes to URLComponents")
    func whichURLsTheParserSplits() {
        func splits(_ string: String) -> Bool {
            var string = string
            return string.withUTF8 { URLParts($0) } != nil
        }
        #expect(splits("https://api.example.com/items?sort=name&page=2"))
        #expect(splits("HTTP://u:p@Example.com:8080/a%2Fb;c=d/e?f=g?h#i"))
        #expect(splits("https://ex%FFample.com/%ff?%00"))
        #expect(!splits("https://[::1]/"))
        #expect(!splits("https://example.com/a b"))
        #expect(!splits("https://example.com/%zz"))
        #expect(!splits("ftp://example.com/"))
        for string in ["https://ex%FFample.com/%ff?%00", "https://%C3%A4@h%c3%a4.com/%e2%82%ac?%E2%82%AC=%e2"] {
            Self.expectSameAsComponents(string)
        }
    }

    @Test func transientItemsAreRemovedByTheirDecodedName() throws {
        let url = try NormalizedURL("https://example.com/?t%6fken=1&%74oken=2&page=3&to%20ken=4", removing: ["token"])
        #expect(url.text == "https://example.com/?page=3&to%20ken=4")
    }

    @Test("random text over URL characters: the parser agrees with URLComponents on every string")
    func randomStringsAgreeWithURLComponents() {
        var generator = SystemRandomNumberGenerator()
        let prefixes = ["http://", "https://", "HtTpS://", "http:/", "ftp://", "https://u:p@", "https://a.b:", ""]
        let pieces = [
            "a", "Z", "0", "9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@",
            "/", "?", "#", "%", "%4", "%41", "%7e", "%2F", "%zz", "%FF", "%C3%A4", "[", "]", "[::1]", " ", "ä", "\\",
            "|", "{", "^", "`", "\"", "<", "example.com", ":8080", ":443", ":80", "?a=1&b=2", "&&", "==",
        ]
        for _ in 0..<5_000 {
            var string = prefixes.randomElement(using: &generator) ?? ""
            for _ in 0..<Int.random(in: 0...10, using: &generator) {
                string += pieces.randomElement(using: &generator) ?? ""
            }
            Self.expectSameAsComponents(string)
        }
    }
}
