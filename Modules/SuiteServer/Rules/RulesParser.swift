import SuiteCore

/// Parses Firestore's rules language (the subset ``FirestoreRules`` evaluates) into ``RulesFile``.
struct RulesParser {
    private var lexer: RulesLexer
    private var current: RulesToken
    /// How deep expressions nest here (parentheses, operands, arguments): bounded so evaluation never runs out of
    /// stack.
    private var depth = 0
    static let maximumDepth = 100
    /// The most operands one chain of `+ - * / %` or comparisons may have.
    static let maximumChain = 256

    init(_ source: String, fileName: String) throws {
        lexer = RulesLexer(source, fileName: fileName)
        current = try lexer.next()
    }

    // MARK: File structure

    /// `rules_version = '2'; service cloud.firestore { … }`
    mutating func parseFile() throws -> RulesFile {
        var version = 1
        if isIdentifier("rules_version") {
            try advance()
            try expect("=")
            guard case .string(let text) = current.kind, text == "1" || text == "2" else {
                throw error("rules_version must be '1' or '2'", hint: "write rules_version = '2';")
            }
            version = text == "2" ? 2 : 1
            try advance()
            try skip(";")
        }
        guard isIdentifier("service") else {
            throw error("expected 'service cloud.firestore {'", hint: "a rules file starts with the service it guards")
        }
        try advance()
        let nameLocation = current.location
        var name = try identifier("the service name")
        while isSymbol(".") {
            try advance()
            name += "." + (try identifier("the service name"))
        }
        guard name == "cloud.firestore" else {
            throw lexer.error(
                "suite serve reads rules for cloud.firestore, not \(name)", at: nameLocation,
                hint: "Storage rules (firebase.storage) guard files; Suite serves documents")
        }
        try expect("{")
        var functions: [RulesFunction] = []
        var matches: [RulesMatch] = []
        while !isSymbol("}") {
            if isIdentifier("function") {
                functions.append(try parseFunction())
            } else if isIdentifier("match") {
                matches.append(try parseMatch())
            } else {
                throw unexpected("'match' or 'function'")
            }
        }
        try advance()
        guard case .end = current.kind else { throw unexpected("the end of the file") }
        return RulesFile(version: version, functions: functions, matches: matches)
    }

    private mutating func parseMatch() throws -> RulesMatch {
        let location = current.location
        try advance()
        return try parseMatchBody(location: location)
    }

    private mutating func parseMatchBody(location: RulesLocation) throws -> RulesMatch {
        // `current` is the first token after `match`; the pattern must start with '/'.
        guard isSymbol("/") else { throw unexpected("a path pattern such as /users/{userId}") }
        var pattern: [RulesPatternSegment] = []
        // The lexer stands right after '/': read the pattern raw.
        while true {
            let segmentLocation = lexer.location
            if lexer.currentByte == UInt8(ascii: "{") {
                lexer.consumeByte()
                let name = lexer.rawSegment()
                guard !name.isEmpty, name.utf8.allSatisfy(RulesLexer.isIdentifierPart) else {
                    throw lexer.error("a wildcard needs a name, e.g. {userId}", at: segmentLocation)
                }
                var recursive = false
                if lexer.currentByte == UInt8(ascii: "=") {
                    lexer.consumeByte()
                    guard lexer.currentByte == UInt8(ascii: "*") else {
                        throw lexer.error("a wildcard is {name} or {name=**}", at: segmentLocation)
                    }
                    lexer.consumeByte()
                    guard lexer.currentByte == UInt8(ascii: "*") else {
                        throw lexer.error("a wildcard is {name} or {name=**}", at: segmentLocation)
                    }
                    lexer.consumeByte()
                    recursive = true
                }
                guard lexer.currentByte == UInt8(ascii: "}") else {
                    throw lexer.error("the wildcard is not closed with '}'", at: segmentLocation)
                }
                lexer.consumeByte()
                pattern.append(recursive ? .recursive(name) : .single(name))
            } else {
                let text = lexer.rawSegment()
                guard !text.isEmpty else {
                    throw lexer.error(
                        "a path segment is missing", at: segmentLocation, hint: "e.g. match /users/{userId}")
                }
                pattern.append(.literal(text))
            }
            guard lexer.currentByte == UInt8(ascii: "/") else { break }
            lexer.consumeByte()
        }
        try advance()
        try expect("{")
        var match = RulesMatch(pattern: pattern, allows: [], functions: [], children: [], location: location)
        while !isSymbol("}") {
            if isIdentifier("allow") {
                match.allows.append(try parseAllow())
            } else if isIdentifier("match") {
                let childLocation = current.location
                try advance()
                match.children.append(try parseMatchBody(location: childLocation))
            } else if isIdentifier("function") {
                match.functions.append(try parseFunction())
            } else {
                throw unexpected("'allow', 'match' or 'function'")
            }
        }
        try advance()
        return match
    }

    /// `allow read, write: if expression;` or `allow read;`
    private mutating func parseAllow() throws -> RulesAllow {
        let location = current.location
        try advance()
        var methods: Set<RulesMethod> = []
        var written: [String] = []
        repeat {
            if isSymbol(",") { try advance() }
            let wordLocation = current.location
            let word = try identifier("an operation (read, write, get, list, create, update, delete)")
            guard let expanded = RulesMethod.expand(word) else {
                throw lexer.error(
                    "'\(word)' is not an operation", at: wordLocation,
                    hint: Suggestion.didYouMean(
                        word, among: ["read", "write"] + RulesMethod.allCases.map(\.rawValue), what: "operations"))
            }
            methods.formUnion(expanded)
            written.append(word)
        } while isSymbol(",")
        var condition: RulesExpression?
        if isSymbol(":") {
            try advance()
            guard isIdentifier("if") else { throw unexpected("'if' and a condition") }
            try advance()
            condition = try parseExpression()
        }
        try skip(";")
        return RulesAllow(methods: methods, written: written, condition: condition, location: location)
    }

    /// `function name(a, b) { let x = …; return …; }`
    private mutating func parseFunction() throws -> RulesFunction {
        let location = current.location
        try advance()
        let name = try identifier("the function's name")
        try expect("(")
        var parameters: [String] = []
        while !isSymbol(")") {
            if !parameters.isEmpty { try expect(",") }
            parameters.append(try identifier("a parameter name"))
        }
        try advance()
        try expect("{")
        var lets: [(String, RulesExpression)] = []
        while isIdentifier("let") {
            try advance()
            let variable = try identifier("the variable's name")
            try expect("=")
            lets.append((variable, try parseExpression()))
            try skip(";")
        }
        guard isIdentifier("return") else { throw unexpected("'let' or 'return'") }
        try advance()
        let body = try parseExpression()
        try skip(";")
        try expect("}")
        return RulesFunction(name: name, parameters: parameters, lets: lets, body: body, location: location)
    }

    // MARK: Expressions, lowest precedence first

    mutating func parseExpression() throws -> RulesExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw error(
                "the expression nests deeper than \(Self.maximumDepth) levels",
                hint: "split it into functions, each with a part of the condition")
        }
        let condition = try parseOr()
        guard isSymbol("?") else { return condition }
        let location = current.location
        try advance()
        let yes = try parseExpression()
        try expect(":")
        let no = try parseExpression()
        return .conditional(condition, yes, no, location)
    }

    private mutating func parseOr() throws -> RulesExpression {
        var operands = [try parseAnd()]
        var locations: [RulesLocation] = []
        while isSymbol("||") {
            locations.append(current.location)
            try checkLogicalChain(operands.count)
            try advance()
            operands.append(try parseAnd())
        }
        return Self.balanced("||", operands, locations)
    }

    private mutating func parseAnd() throws -> RulesExpression {
        var operands = [try parseRelation()]
        var locations: [RulesLocation] = []
        while isSymbol("&&") {
            locations.append(current.location)
            try checkLogicalChain(operands.count)
            try advance()
            operands.append(try parseRelation())
        }
        return Self.balanced("&&", operands, locations)
    }

    /// A chain of `&&` (or `||`) as a balanced tree: the operators are associative (with Firestore's handling of
    /// errors too), and a long chain then nests only logarithmically deep.
    static func balanced(_ symbol: String, _ operands: [RulesExpression], _ locations: [RulesLocation])
        -> RulesExpression
    {
        guard operands.count > 1 else { return operands[0] }
        let middle = operands.count / 2
        return .binary(
            symbol, balanced(symbol, Array(operands[..<middle]), Array(locations[..<(middle - 1)])),
            balanced(symbol, Array(operands[middle...]), Array(locations[middle...])), locations[middle - 1])
    }

    /// Firestore refuses a condition of about a hundred terms joined by `&&` or `||` as too complex.
    private func checkLogicalChain(_ operands: Int) throws {
        guard operands < Self.maximumLogicalChain else {
            throw error(
                "the expression is too complex: more than \(Self.maximumLogicalChain) terms joined by && or ||",
                hint: "group the terms into functions")
        }
    }

    static let maximumLogicalChain = 100

    private mutating func checkChain(_ count: inout Int) throws {
        count += 1
        guard count < Self.maximumChain else {
            throw error("more than \(Self.maximumChain) operands in a row", hint: "split the expression into functions")
        }
    }

    private mutating func parseRelation() throws -> RulesExpression {
        var left = try parseAdditive()
        var chain = 0
        while true {
            try checkChain(&chain)
            let location = current.location
            if let symbol = symbolIn(["==", "!=", "<", "<=", ">", ">="]) {
                try advance()
                left = .binary(symbol, left, try parseAdditive(), location)
            } else if isIdentifier("in") {
                try advance()
                left = .binary("in", left, try parseAdditive(), location)
            } else if isIdentifier("is") {
                try advance()
                let typeLocation = current.location
                let type = try identifier("a type name")
                guard RulesValue.typeNames.contains(type) else {
                    throw lexer.error(
                        "'\(type)' is not a type", at: typeLocation,
                        hint: Suggestion.didYouMean(type, among: RulesValue.typeNames.sorted(), what: "types"))
                }
                left = .isType(left, type, location)
            } else {
                return left
            }
        }
    }

    private mutating func parseAdditive() throws -> RulesExpression {
        var left = try parseMultiplicative()
        var chain = 0
        while let symbol = symbolIn(["+", "-"]) {
            try checkChain(&chain)
            let location = current.location
            try advance()
            left = .binary(symbol, left, try parseMultiplicative(), location)
        }
        return left
    }

    private mutating func parseMultiplicative() throws -> RulesExpression {
        var left = try parseUnary()
        var chain = 0
        while let symbol = symbolIn(["*", "/", "%"]) {
            try checkChain(&chain)
            let location = current.location
            try advance()
            left = .binary(symbol, left, try parseUnary(), location)
        }
        return left
    }

    private mutating func parseUnary() throws -> RulesExpression {
        if let symbol = symbolIn(["!", "-"]) {
            let location = current.location
            try advance()
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else {
                throw error("the expression nests deeper than \(Self.maximumDepth) levels")
            }
            let operand = try parseUnary()
            if symbol == "-", case .literal(let value) = operand {
                if case .int(let n) = value { return .literal(.int(-n)) }
                if case .float(let n) = value { return .literal(.float(-n)) }
            }
            return .unary(symbol, operand, location)
        }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws -> RulesExpression {
        var expression = try parsePrimary()
        var chain = 0
        while true {
            try checkChain(&chain)
            let location = current.location
            if isSymbol(".") {
                try advance()
                let name = try identifier("a field or method name")
                if isSymbol("(") {
                    let arguments = try parseArguments()
                    if case .identifier(let namespace, _) = expression, RulesValue.namespaces.contains(namespace) {
                        expression = .call(namespace + "." + name, arguments, location)
                    } else {
                        expression = .method(expression, name, arguments, location)
                    }
                } else {
                    expression = .member(expression, name, location)
                }
            } else if isSymbol("[") {
                try advance()
                var lower: RulesExpression?
                if !isSymbol(":") { lower = try parseExpression() }
                if isSymbol(":") {
                    try advance()
                    var upper: RulesExpression?
                    if !isSymbol("]") { upper = try parseExpression() }
                    try expect("]")
                    expression = .range(expression, lower, upper, location)
                } else {
                    try expect("]")
                    guard let lower else { throw unexpected("an index") }
                    expression = .index(expression, lower, location)
                }
            } else {
                return expression
            }
        }
    }

    private mutating func parseArguments() throws -> [RulesExpression] {
        try expect("(")
        var arguments: [RulesExpression] = []
        while !isSymbol(")") {
            if !arguments.isEmpty { try expect(",") }
            arguments.append(try parseExpression())
        }
        try advance()
        return arguments
    }

    private mutating func parsePrimary() throws -> RulesExpression {
        let location = current.location
        switch current.kind {
        case .integer(let value):
            try advance()
            return .literal(.int(value))
        case .float(let value):
            try advance()
            return .literal(.float(value))
        case .string(let value):
            try advance()
            return .literal(.string(value))
        case .identifier(let name):
            switch name {
            case "true":
                try advance()
                return .literal(.bool(true))
            case "false":
                try advance()
                return .literal(.bool(false))
            case "null":
                try advance()
                return .literal(.null)
            default:
                try advance()
                if isSymbol("(") { return .call(name, try parseArguments(), location) }
                return .identifier(name, location)
            }
        case .symbol("("):
            try advance()
            let inner = try parseExpression()
            try expect(")")
            return inner
        case .symbol("["):
            try advance()
            var items: [RulesExpression] = []
            while !isSymbol("]") {
                if !items.isEmpty {
                    try expect(",")
                    if isSymbol("]") { break }
                }
                items.append(try parseExpression())
            }
            try advance()
            return .list(items)
        case .symbol("{"):
            try advance()
            var entries: [(RulesExpression, RulesExpression)] = []
            while !isSymbol("}") {
                if !entries.isEmpty {
                    try expect(",")
                    if isSymbol("}") { break }
                }
                let key = try parseExpression()
                try expect(":")
                entries.append((key, try parseExpression()))
            }
            try advance()
            return .map(entries)
        case .symbol("/"):
            return try parsePathLiteral(location: location)
        default:
            throw unexpected("a value")
        }
    }

    /// `/databases/$(database)/documents/users/$(request.auth.uid)`; the lexer stands right after the first `/`.
    private mutating func parsePathLiteral(location: RulesLocation) throws -> RulesExpression {
        var parts: [RulesExpression.PathPart] = []
        while true {
            if lexer.currentByte == UInt8(ascii: "$") || lexer.currentByte == UInt8(ascii: "(") {
                if lexer.currentByte == UInt8(ascii: "$") { lexer.consumeByte() }
                current = try lexer.next()
                try expect("(")
                parts.append(.expression(try parseExpression()))
                guard isSymbol(")") else { throw unexpected("')'") }
                // `current` is the ')' and the lexer stands right after it.
            } else {
                let segmentLocation = lexer.location
                let text = lexer.rawSegment()
                guard !text.isEmpty else {
                    throw lexer.error(
                        "a path segment is missing", at: segmentLocation,
                        hint: "e.g. /databases/$(database)/documents/users/$(request.auth.uid)")
                }
                parts.append(.text(text))
            }
            guard lexer.pathContinues() else { break }
            lexer.consumeByte()
        }
        try advance()
        return .path(parts, location)
    }

    // MARK: Tokens

    private mutating func advance() throws { current = try lexer.next() }

    private func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let found) = current.kind { return found == symbol }
        return false
    }

    private func symbolIn(_ symbols: [String]) -> String? {
        if case .symbol(let found) = current.kind, symbols.contains(found) { return found }
        return nil
    }

    private func isIdentifier(_ word: String) -> Bool {
        if case .identifier(let found) = current.kind { return found == word }
        return false
    }

    private mutating func identifier(_ what: String) throws -> String {
        guard case .identifier(let name) = current.kind else { throw unexpected(what) }
        try advance()
        return name
    }

    private mutating func expect(_ symbol: String) throws {
        guard isSymbol(symbol) else { throw unexpected("'\(symbol)'") }
        try advance()
    }

    private mutating func skip(_ symbol: String) throws {
        if isSymbol(symbol) { try advance() }
    }

    private func describe(_ token: RulesToken) -> String {
        switch token.kind {
        case .identifier(let name): "'\(name)'"
        case .integer(let value): "\(value)"
        case .float(let value): "\(value)"
        case .string(let value): "the string '\(value)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the file"
        }
    }

    private func unexpected(_ expected: String) -> RulesSyntaxError {
        var hint: String?
        if case .symbol("&") = current.kind { hint = "'and' is written &&" }
        if case .symbol("|") = current.kind { hint = "'or' is written ||" }
        if case .identifier(let word) = current.kind, ["and", "or", "not"].contains(word) {
            hint = "write && for and, || for or, ! for not"
        }
        return lexer.error("expected \(expected), found \(describe(current))", at: current.location, hint: hint)
    }

    private func error(_ message: String, hint: String? = nil) -> RulesSyntaxError {
        lexer.error(message, at: current.location, hint: hint)
    }
}
