/// The byte ranges a glob captured, one per placeholder of ``LayoutRule/placeholders`` (`nil`: not captured).
struct LayoutCaptureRanges: Sendable {
    private var ranges: (Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?) = (nil, nil, nil, nil, nil)

    subscript(name: Int) -> Range<Int>? {
        get {
            switch name {
            case 0: ranges.0
            case 1: ranges.1
            case 2: ranges.2
            case 3: ranges.3
            default: ranges.4
            }
        }
        set {
            switch name {
            case 0: ranges.0 = newValue
            case 1: ranges.1 = newValue
            case 2: ranges.2 = newValue
            case 3: ranges.3 = newValue
            default: ranges.4 = newValue
            }
        }
    }

    func enumerated() -> [(offset: Int, element: Range<Int>?)] { (0..<5).map { ($0, self[$0]) } }
}

/// A glob over path bytes: segments of literals, `*` and `{placeholder}` captures, and `**` for any number of
/// segments. Matching walks byte offsets into the path (no slices, no per-segment arrays): it runs for every scanned
/// file.
struct GlobPattern: Sendable {
    struct Token: Sendable {
        enum Kind: Sendable { case literal, star, capture }
        var kind: Kind
        /// For a capture: its index in ``LayoutRule/placeholders``.
        var name = 0
        /// For a literal: its bytes in ``GlobPattern/literals``.
        var literal = 0..<0
    }
    enum Segment: Sendable {
        case anyDepth
        /// The segment's tokens in ``GlobPattern/tokens``.
        case tokens(Range<Int>)
    }
    let segments: [Segment]
    let tokens: [Token]
    let literals: [UInt8]
    private static let ext = LayoutRule.placeholders.firstIndex(of: "ext") ?? -1
    private static let groupId = LayoutRule.placeholders.firstIndex(of: "groupId") ?? -1

    init(_ pattern: String) throws {
        guard !pattern.isEmpty else {
            throw StorageError(.invalidInput, "a layout rule is empty", hint: "e.g. chats/{groupId}/{contentId}.{ext}")
        }
        var segments: [Segment] = []
        var tokens: [Token] = []
        var literals: [UInt8] = []
        for part in pattern.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "**" {
                segments.append(.anyDepth)
                continue
            }
            let first = tokens.count
            var literalStart = literals.count
            func endLiteral() {
                if literals.count > literalStart {
                    tokens.append(Token(kind: .literal, literal: literalStart..<literals.count))
                }
                literalStart = literals.count
            }
            var rest = Substring(part)
            while let character = rest.first {
                rest = rest.dropFirst()
                switch character {
                case "*":
                    if rest.first == "*" {
                        throw StorageError(
                            .invalidInput, "'**' must be a whole segment in the layout rule '\(pattern)'",
                            hint: "write a/**/b, not a**b")
                    }
                    endLiteral()
                    tokens.append(Token(kind: .star))
                case "{":
                    guard let close = rest.firstIndex(of: "}") else {
                        throw StorageError(.invalidInput, "unclosed '{' in the layout rule '\(pattern)'")
                    }
                    let name = String(rest[..<close])
                    guard let index = LayoutRule.placeholders.firstIndex(of: name) else {
                        throw StorageError(
                            .invalidInput, "unknown placeholder {\(name)} in the layout rule '\(pattern)'",
                            hint: "use {service}, {groupId}, {contentId}, {contentSubId} or {ext}")
                    }
                    endLiteral()
                    tokens.append(Token(kind: .capture, name: index))
                    rest = rest[rest.index(after: close)...]
                default:
                    literals.append(contentsOf: Array(String(character).utf8))
                }
            }
            endLiteral()
            segments.append(.tokens(first..<tokens.count))
        }
        self.segments = segments
        self.tokens = tokens
        self.literals = literals
    }

    var groupDepth: Int? {
        for (index, segment) in segments.enumerated() {
            guard case .tokens(let range) = segment else { return nil }
            if tokens[range].contains(where: { $0.kind == .capture && $0.name == Self.groupId }) {
                return max(1, min(index + 1, segments.count - 1))
            }
        }
        return nil
    }

    func match(_ path: [UInt8]) -> LayoutMatch? {
        guard let ranges = captureRanges(path) else { return nil }
        var result = LayoutMatch()
        for (name, range) in ranges.enumerated() {
            if let range { result.set(LayoutRule.placeholders[name], StoragePath.escape(path[range])) }
        }
        return result
    }

    /// What `path` captures, by placeholder (the index in ``LayoutRule/placeholders``), as ranges of its bytes; `nil`
    /// when the pattern does not match. A placeholder captured twice keeps its last capture.
    func captureRanges(_ path: [UInt8]) -> LayoutCaptureRanges? {
        path.withUnsafeBufferPointer { bytes in
            tokens.withUnsafeBufferPointer { tokens in
                literals.withUnsafeBufferPointer { literals in
                    var matcher = Matcher(
                        path: bytes, segments: segments, tokens: tokens, literals: literals, captures: [])
                    matcher.captures.reserveCapacity(4)
                    guard matcher.matchSegments(0, 0) else { return nil }
                    var result = LayoutCaptureRanges()
                    for capture in matcher.captures { result[capture.name] = capture.start..<capture.end }
                    return result
                }
            }
        }
    }

    private struct Capture {
        var name: Int
        var start: Int
        var end: Int
    }

    /// The path's parts are the byte ranges between slashes (an empty path is one empty part); a position past the
    /// path's end (`path.count + 1`) means no parts left.
    private struct Matcher {
        let path: UnsafeBufferPointer<UInt8>
        let segments: [Segment]
        let tokens: UnsafeBufferPointer<Token>
        let literals: UnsafeBufferPointer<UInt8>
        var captures: [Capture]
        /// Calls so far, and the states (a segment or a token at a path offset) known not to match once matching has
        /// taken more than a few hundred calls: a match's outcome from a state does not depend on the captures made
        /// before it, so remembering failures keeps rules like `*a*a*a*b` or `**/**/**/x` polynomial on long paths
        /// (without it they backtrack exponentially, a hang on a hostile or merely deep path).
        var calls = 0
        var failed: Set<Int>?

        mutating func knownToFail(_ state: Int) -> Bool {
            calls += 1
            return failed?.contains(state) ?? false
        }

        mutating func recordFailure(_ state: Int) {
            if failed == nil, calls > 256 { failed = [] }
            failed?.insert(state)
        }

        /// The end of the part starting at `position`.
        func partEnd(_ position: Int) -> Int {
            var end = position
            while end < path.count, path[end] != UInt8(ascii: "/") { end += 1 }
            return end
        }

        mutating func matchSegments(_ index: Int, _ position: Int) -> Bool {
            guard index < segments.count else { return position > path.count }
            let state = index * (path.count + 2) + position
            if knownToFail(state) { return false }
            let matched = matchSegment(index, position)
            if !matched { recordFailure(state) }
            return matched
        }

        mutating func matchSegment(_ index: Int, _ position: Int) -> Bool {
            switch segments[index] {
            case .anyDepth:
                var next = position
                while true {
                    let mark = captures.count
                    if matchSegments(index + 1, next) { return true }
                    captures.removeSubrange(mark...)
                    if next > path.count { return false }
                    next = partEnd(next) + 1
                }
            case .tokens(let range):
                guard position <= path.count else { return false }
                let end = partEnd(position)
                let mark = captures.count
                if matchTokens(range.lowerBound, range.upperBound, position, end), matchSegments(index + 1, end + 1) {
                    return true
                }
                captures.removeSubrange(mark...)
                return false
            }
        }

        /// Whether tokens `token..<last` match the path's bytes `start..<end` (`end` is where the part of `start`
        /// ends, so a token and a start name one state).
        mutating func matchTokens(_ token: Int, _ last: Int, _ start: Int, _ end: Int) -> Bool {
            guard token < last else { return start == end }
            let state = (segments.count + token) * (path.count + 2) + start
            if knownToFail(state) { return false }
            let matched = matchToken(token, last, start, end)
            if !matched { recordFailure(state) }
            return matched
        }

        mutating func matchToken(_ token: Int, _ last: Int, _ start: Int, _ end: Int) -> Bool {
            let current = tokens[token]
            switch current.kind {
            case .literal:
                let count = current.literal.count
                guard end - start >= count else { return false }
                for offset in 0..<count where path[start + offset] != literals[current.literal.lowerBound + offset] {
                    return false
                }
                return matchTokens(token + 1, last, start + count, end)
            case .star, .capture:
                let isCapture = current.kind == .capture
                let minimum = isCapture ? 1 : 0
                // Greedy: the longest text first, as `{contentId}.{ext}` expects for `a.b.jpg`.
                var length = end - start
                if isCapture, current.name == GlobPattern.ext {
                    var dot = start
                    while dot < end, path[dot] != UInt8(ascii: ".") { dot += 1 }
                    length = dot - start
                }
                while length >= minimum {
                    let mark = captures.count
                    if isCapture { captures.append(Capture(name: current.name, start: start, end: start + length)) }
                    if matchTokens(token + 1, last, start + length, end) { return true }
                    captures.removeSubrange(mark...)
                    length -= 1
                }
                return false
            }
        }
    }
}
