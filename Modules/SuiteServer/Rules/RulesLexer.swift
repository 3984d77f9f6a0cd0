/// A place in a rules file, for errors and for naming the rule that decided.
public struct RulesLocation: Sendable, Hashable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// One token of Firestore's rules language.
struct RulesToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case integer(Int64)
        case float(Double)
        case string(String)
        /// Punctuation and operators: `{ } ( ) [ ] , ; : . ? ! = == != < <= > >= + - * / % && || $`.
        case symbol(String)
        case end
    }

    var kind: Kind
    var location: RulesLocation
    /// Where the token starts in the source (a UTF-8 offset).
    var offset: Int
}

/// Reads tokens on demand, so the parser can switch to reading a path (`/users/$(uid)`) raw.
struct RulesLexer {
    let bytes: [UInt8]
    let fileName: String
    private(set) var position = 0
    private var line = 1
    private var lineStart = 0

    init(_ source: String, fileName: String) {
        bytes = Array(source.utf8)
        self.fileName = fileName
    }

    var location: RulesLocation { RulesLocation(line: line, column: position - lineStart + 1) }

    func error(_ message: String, at location: RulesLocation, hint: String? = nil) -> RulesSyntaxError {
        RulesSyntaxError(fileName: fileName, location: location, message: message, hint: hint)
    }

    private func peekByte(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    private mutating func advance() {
        if bytes[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        position += 1
    }

    /// Skips blanks and comments.
    mutating func skipTrivia() throws {
        while let byte = peekByte() {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                advance()
            } else if byte == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "/") {
                while let next = peekByte(), next != 0x0A { advance() }
            } else if byte == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "*") {
                let start = location
                advance()
                advance()
                while true {
                    guard let next = peekByte() else { throw error("the comment is not closed", at: start) }
                    if next == UInt8(ascii: "*"), peekByte(1) == UInt8(ascii: "/") {
                        advance()
                        advance()
                        break
                    }
                    advance()
                }
            } else {
                return
            }
        }
    }

    /// The next token.
    mutating func next() throws -> RulesToken {
        try skipTrivia()
        let start = location
        let offset = position
        guard let byte = peekByte() else { return RulesToken(kind: .end, location: start, offset: offset) }
        if Self.isIdentifierStart(byte) {
            while let next = peekByte(), Self.isIdentifierPart(next) { advance() }
            return RulesToken(
                kind: .identifier(String(decoding: bytes[offset..<position], as: UTF8.self)), location: start,
                offset: offset)
        }
        if Self.isDigit(byte) { return try number(start: start, offset: offset) }
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
            return RulesToken(kind: .string(try string(quote: byte, start: start)), location: start, offset: offset)
        }
        for symbol in Self.twoByteSymbols where peekByte() == symbol.utf8.first && peekByte(1) == symbol.utf8.last {
            advance()
            advance()
            return RulesToken(kind: .symbol(symbol), location: start, offset: offset)
        }
        if Self.oneByteSymbols.contains(byte) {
            advance()
            return RulesToken(
                kind: .symbol(String(decoding: [byte], as: UTF8.self)), location: start, offset: offset)
        }
        let text =
            byte < 0x80 ? "'\(String(decoding: [byte], as: UTF8.self))'" : "a character outside ASCII"
        throw error("unexpected \(text)", at: start)
    }

    /// A path segment written raw after `/`: letters, digits and `_-.~%@+`. Empty when none follows.
    mutating func rawSegment() -> String {
        let start = position
        while let byte = peekByte(), Self.isSegmentByte(byte) { advance() }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Whether the bytes right here (no blanks skipped) are `/` and the start of another path segment.
    func pathContinues() -> Bool {
        guard peekByte() == UInt8(ascii: "/"), let next = peekByte(1) else { return false }
        return Self.isSegmentByte(next) || next == UInt8(ascii: "$") || next == UInt8(ascii: "(")
            || next == UInt8(ascii: "{")
    }

    /// Consumes one byte known to be there (the parser's `/` or `{` in a path).
    mutating func consumeByte() { advance() }

    /// The byte here, without skipping anything.
    var currentByte: UInt8? { peekByte() }

    private mutating func number(start: RulesLocation, offset: Int) throws -> RulesToken {
        var isFloat = false
        while let next = peekByte(), Self.isDigit(next) { advance() }
        if peekByte() == UInt8(ascii: "."), let after = peekByte(1), Self.isDigit(after) {
            isFloat = true
            advance()
            while let next = peekByte(), Self.isDigit(next) { advance() }
        }
        if let e = peekByte(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var ahead = 1
            if let sign = peekByte(1), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { ahead = 2 }
            if let digit = peekByte(ahead), Self.isDigit(digit) {
                isFloat = true
                for _ in 0..<ahead { advance() }
                while let next = peekByte(), Self.isDigit(next) { advance() }
            }
        }
        let text = String(decoding: bytes[offset..<position], as: UTF8.self)
        if isFloat {
            guard let value = Double(text) else { throw error("'\(text)' is not a number", at: start) }
            return RulesToken(kind: .float(value), location: start, offset: offset)
        }
        guard let value = Int64(text) else {
            throw error("'\(text)' is too large for an integer", at: start, hint: "integers are 64-bit")
        }
        return RulesToken(kind: .integer(value), location: start, offset: offset)
    }

    private mutating func string(quote: UInt8, start: RulesLocation) throws -> String {
        advance()
        var scalars: [UInt8] = []
        while true {
            guard let byte = peekByte(), byte != 0x0A else {
                throw error("the string is not closed", at: start, hint: "close it with the same quote on its line")
            }
            advance()
            if byte == quote { break }
            guard byte == UInt8(ascii: "\\") else {
                scalars.append(byte)
                continue
            }
            guard let escaped = peekByte() else { throw error("the string is not closed", at: start) }
            advance()
            switch escaped {
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "/"): scalars.append(escaped)
            case UInt8(ascii: "u"):
                var hex = ""
                for _ in 0..<4 {
                    guard let digit = peekByte(), Self.isHexDigit(digit) else {
                        throw error("\\u needs four hexadecimal digits", at: location)
                    }
                    hex.append(Character(Unicode.Scalar(digit)))
                    advance()
                }
                guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw error("\\u\(hex) is not a character", at: location)
                }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                // Regular expressions keep their own escapes: `'\\d+'` and `'\d+'` mean the same to matches().
                scalars.append(UInt8(ascii: "\\"))
                scalars.append(escaped)
            }
        }
        return String(decoding: scalars, as: UTF8.self)
    }

    static let twoByteSymbols = ["==", "!=", "<=", ">=", "&&", "||"]
    static let oneByteSymbols = Set("{}()[],;:.?!=<>+-*/%$".utf8)

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }
    static func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
    static func isSegmentByte(_ byte: UInt8) -> Bool {
        isIdentifierPart(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "@")
            || byte == UInt8(ascii: "+") || byte >= 0x80
    }
}

/// A rules file that cannot be loaded: where, what, and how to fix it.
struct RulesSyntaxError: Error, Sendable {
    var fileName: String
    var location: RulesLocation
    var message: String
    var hint: String?
}
