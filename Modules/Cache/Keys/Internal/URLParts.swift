/// The components of an absolute `http` or `https` URL written in RFC 3986's characters alone, split without
/// URLComponents (which costs microseconds a key cannot spare), each as the percent-encoded text URLComponents' own
/// `percentEncoded…` properties give for such a URL.
///
/// It accepts `scheme://[user[:password]@]host[:port][/path][?query][#fragment]` where the scheme is `http` or `https`
/// in any case, the host a non-empty registered name, the port at most five digits (empty: none), every `%` starts an
/// escape of two hex digits and every other character is one RFC 3986 allows there. Anything else gives `nil`, and
/// ``NormalizedURL`` hands the text to URLComponents: IPv6 and IPvFuture hosts, non-ASCII text, characters URLComponents
/// escapes or refuses, more than one `@` or `#`, other schemes and every error.
struct URLParts {
    /// `http` or `https`, lower-cased.
    var scheme: String
    var user: String?
    var password: String?
    var host: String
    var port: Int?
    var path: String
    var query: String?

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        let end = bytes.count
        // Scheme: ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") ":", and the authority's "//".
        var i = 0
        while i < end, Self.isSchemeCharacter(bytes[i], first: i == 0) { i += 1 }
        guard i > 0, i + 2 < end, bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"),
            bytes[i + 2] == UInt8(ascii: "/"), let scheme = Self.httpScheme(bytes[0..<i])
        else { return nil }
        self.scheme = scheme
        let authorityStart = i + 3

        // Authority: up to the first "/", "?" or "#"; user info before its one "@", the port after the host's ":".
        var authorityEnd = authorityStart
        var at: Int?
        while authorityEnd < end {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") {
                guard at == nil else { return nil }
                at = authorityEnd
            } else if !(Self.isSubComponentCharacter(byte) || byte == UInt8(ascii: ":")) {
                return nil
            }
            authorityEnd += 1
        }
        var hostStart = authorityStart
        if let at {
            guard Self.hasValidEscapes(bytes[authorityStart..<at]) else { return nil }
            let colon = bytes[authorityStart..<at].firstIndex(of: UInt8(ascii: ":"))
            user = Self.text(bytes[authorityStart..<(colon ?? at)])
            password = colon.map { Self.text(bytes[($0 + 1)..<at]) }
            hostStart = at + 1
        }
        let hostPort = bytes[hostStart..<authorityEnd]
        let colon = hostPort.firstIndex(of: UInt8(ascii: ":"))
        let hostEnd = colon ?? authorityEnd
        guard hostEnd > hostStart, Self.hasValidEscapes(bytes[hostStart..<hostEnd]) else { return nil }
        host = Self.text(bytes[hostStart..<hostEnd])
        if let colon {
            let digits = bytes[(colon + 1)..<authorityEnd]
            guard digits.count <= 5 else { return nil }
            var value = 0
            for digit in digits {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
            }
            port = digits.isEmpty ? nil : value
        }

        // Path, query and fragment: pchar / "/" (and "?" past the path), escapes well formed, one "#" at most.
        var pathEnd = authorityEnd
        while pathEnd < end, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        guard Self.isValid(bytes[authorityEnd..<pathEnd], allowingQuestionMark: false) else { return nil }
        path = Self.text(bytes[authorityEnd..<pathEnd])
        var queryEnd = pathEnd
        if pathEnd < end, bytes[pathEnd] == UInt8(ascii: "?") {
            queryEnd = pathEnd + 1
            while queryEnd < end, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            guard Self.isValid(bytes[(pathEnd + 1)..<queryEnd], allowingQuestionMark: true) else { return nil }
            query = Self.text(bytes[(pathEnd + 1)..<queryEnd])
        }
        if queryEnd < end {
            guard Self.isValid(bytes[(queryEnd + 1)..<end], allowingQuestionMark: true) else { return nil }
        }
    }

    /// `http` or `https` when `bytes` spell one of them in any case.
    private static func httpScheme(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        guard bytes.count == 4 || bytes.count == 5 else { return nil }
        let lower = bytes.map { $0 | 0x20 }
        guard lower.starts(with: "http".utf8) else { return nil }
        if lower.count == 4 { return "http" }
        return lower[4] == UInt8(ascii: "s") ? "https" : nil
    }

    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }

    /// Whether every byte is a pchar or `/` (or `?` when allowed), and every `%` starts an escape.
    private static func isValid(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, allowingQuestionMark: Bool) -> Bool {
        for byte in bytes {
            guard
                isSubComponentCharacter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                    || byte == UInt8(ascii: "/") || (allowingQuestionMark && byte == UInt8(ascii: "?"))
            else { return false }
        }
        return hasValidEscapes(bytes)
    }

    /// Whether every `%` is followed by two hex digits.
    private static func hasValidEscapes(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, hexValue(bytes[i + 1]) != nil, hexValue(bytes[i + 2]) != nil else {
                    return false
                }
                i += 3
            } else {
                i += 1
            }
        }
        return true
    }

    private static func isSchemeCharacter(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
        default: false
        }
    }

    /// Unreserved, sub-delims or `%`: what user info, a registered name and a path segment share.
    private static func isSubComponentCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: "%"):
            true
        default: isUnreserved(byte)
        }
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
