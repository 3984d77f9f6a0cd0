package import Documents

/// What rules read besides the request itself: other documents, for `get()`, `exists()`, `getAfter()` and
/// `existsAfter()`.
package protocol RulesDocumentReader: Sendable {
    /// The document at `path` (relative to the database's documents, e.g. `users/ana`), nil when missing: as stored
    /// before the request, or as it will be once the request's writes are applied when `after` is true.
    func document(_ path: String, after: Bool) async throws -> DocumentData?
}

/// An error while a condition is evaluated: the condition is then false, and the reason is reported.
struct RulesFault: Error, Sendable {
    var message: String
    var location: RulesLocation?
}

/// One request's evaluation: its variables, the documents it read and the limits Firestore sets (10 document reads,
/// 20 for a request of several writes; a function call depth of 20; at most 10,000 expressions).
final class RulesEvaluation {
    let request: RulesValue
    let resource: RulesValue
    let database: String
    let reader: (any RulesDocumentReader)?
    /// The documents read so far by the request: shared by every condition it evaluates, so the limit holds per
    /// request.
    let reads: Reads
    private var steps = 0

    /// The documents a request has read, by path (and before or after its writes).
    final class Reads {
        let maximum: Int
        var documents: [String: RulesValue] = [:]
        init(maximum: Int) { self.maximum = maximum }
    }
    static let maximumSteps = 10_000
    static let maximumDepth = 20

    init(
        request: RulesValue, resource: RulesValue, database: String, reader: (any RulesDocumentReader)?, reads: Reads
    ) {
        self.request = request
        self.resource = resource
        self.database = database
        self.reader = reader
        self.reads = reads
    }

    /// Variables in reach: wildcards, parameters and `let`s; the functions that can be called; the call depth.
    struct Scope {
        var bindings: [String: RulesValue]
        var functions: [String: RulesFunction]
        var depth = 0
    }

    /// A condition's value: true allows; false, an error, or a value that is not a bool denies.
    func condition(_ expression: RulesExpression, _ scope: Scope) async throws -> Bool {
        let value = try await evaluate(expression, scope)
        guard case .bool(let result) = value else {
            throw RulesFault(message: "the condition is \(value.typeName), not bool", location: expression.location)
        }
        return result
    }

    func evaluate(_ expression: RulesExpression, _ scope: Scope) async throws -> RulesValue {
        steps += 1
        if steps > Self.maximumSteps {
            throw RulesFault(
                message: "more than \(Self.maximumSteps) expressions were evaluated", location: expression.location)
        }
        switch expression {
        case .literal(let value):
            return value
        case .identifier(let name, let location):
            if let value = scope.bindings[name] { return value }
            if name == "request" { return request }
            if name == "resource" { return resource }
            throw RulesFault(message: "\(name) has no value for this request", location: location)
        case .list(let items):
            var values: [RulesValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try await evaluate(item, scope)) }
            return .list(values)
        case .map(let entries):
            var fields: [String: RulesValue] = [:]
            for (keyExpression, valueExpression) in entries {
                guard case .string(let key) = try await evaluate(keyExpression, scope) else {
                    throw RulesFault(message: "a map's keys are strings", location: keyExpression.location)
                }
                fields[key] = try await evaluate(valueExpression, scope)
            }
            return .map(fields)
        case .path(let parts, let location):
            return .path(try await pathSegments(parts, scope, location))
        case .member(let base, let name, let location):
            return try member(try await evaluate(base, scope), name, location)
        case .index(let base, let index, let location):
            return try subscripted(try await evaluate(base, scope), try await evaluate(index, scope), location)
        case .range(let base, let lower, let upper, let location):
            let value = try await evaluate(base, scope)
            var low: RulesValue?
            var high: RulesValue?
            if let lower { low = try await evaluate(lower, scope) }
            if let upper { high = try await evaluate(upper, scope) }
            return try Self.slice(value, low, high, location)
        case .call(let name, let arguments, let location):
            return try await call(name, arguments, scope, location)
        case .method(let base, let name, let arguments, let location):
            let receiver = try await evaluate(base, scope)
            var values: [RulesValue] = []
            for argument in arguments { values.append(try await evaluate(argument, scope)) }
            return try Self.method(receiver, name, values, location)
        case .unary(let symbol, let operand, let location):
            let value = try await evaluate(operand, scope)
            switch (symbol, value) {
            case ("!", .bool(let b)): return .bool(!b)
            case ("-", .int(let n)):
                guard n != .min else { throw RulesFault(message: "integer overflow", location: location) }
                return .int(-n)
            case ("-", .float(let d)): return .float(-d)
            case ("-", .duration(let n)): return .duration(-n)
            default:
                throw RulesFault(message: "\(symbol) does not apply to \(value.typeName)", location: location)
            }
        case .binary("&&", let left, let right, _):
            return try await logical(and: true, left, right, scope)
        case .binary("||", let left, let right, _):
            return try await logical(and: false, left, right, scope)
        case .binary(let symbol, let left, let right, let location):
            let a = try await evaluate(left, scope)
            let b = try await evaluate(right, scope)
            return try Self.binary(symbol, a, b, location)
        case .isType(let operand, let type, _):
            return .bool(try await evaluate(operand, scope).isType(type))
        case .conditional(let test, let yes, let no, let location):
            guard case .bool(let chosen) = try await evaluate(test, scope) else {
                throw RulesFault(message: "the test of ?: must be bool", location: location)
            }
            return try await evaluate(chosen ? yes : no, scope)
        }
    }

    /// `&&` and `||` as Firestore evaluates them: an error on one side is forgiven when the other side decides alone
    /// (`error && false` is false, `error || true` is true).
    private func logical(and isAnd: Bool, _ left: RulesExpression, _ right: RulesExpression, _ scope: Scope)
        async throws -> RulesValue
    {
        let decisive = !isAnd
        var leftError: RulesFault?
        do {
            let value = try await condition(left, scope)
            if value == decisive { return .bool(decisive) }
        } catch let fault as RulesFault {
            leftError = fault
        }
        let value = try await condition(right, scope)
        if value == decisive { return .bool(decisive) }
        if let leftError { throw leftError }
        return .bool(value)
    }

    private func pathSegments(_ parts: [RulesExpression.PathPart], _ scope: Scope, _ location: RulesLocation)
        async throws -> [String]
    {
        var segments: [String] = []
        for part in parts {
            switch part {
            case .text(let text): segments.append(text)
            case .expression(let expression):
                switch try await evaluate(expression, scope) {
                case .string(let text):
                    // One segment: a value with a '/' would reach another document than the rule names.
                    guard !text.isEmpty, !text.contains("/") else {
                        throw RulesFault(
                            message: "'\(text)' cannot be one path segment (empty, or it has a '/')",
                            location: location)
                    }
                    segments.append(text)
                case .int(let n): segments.append(String(n))
                case .path(let inner): segments.append(contentsOf: inner)
                case let other:
                    throw RulesFault(
                        message: "$(…) in a path must be a string, not \(other.typeName)", location: location)
                }
            }
        }
        return segments
    }

    // MARK: Members and subscripts

    func member(_ value: RulesValue, _ name: String, _ location: RulesLocation) throws -> RulesValue {
        switch value {
        case .map(let fields):
            guard let field = fields[name] else {
                throw RulesFault(message: "Property \(name) is undefined on object.", location: location)
            }
            return field
        case .null:
            throw RulesFault(message: "Null value error: .\(name) of null", location: location)
        default:
            throw RulesFault(message: "\(value.typeName) has no field \(name)", location: location)
        }
    }

    private func subscripted(_ value: RulesValue, _ index: RulesValue, _ location: RulesLocation) throws
        -> RulesValue
    {
        switch (value, index) {
        case (.map, .string(let key)):
            return try member(value, key, location)
        case (.list(let items), .int(let n)):
            guard n >= 0, n < items.count else {
                throw RulesFault(message: "index \(n) is out of range (size \(items.count))", location: location)
            }
            return items[Int(n)]
        case (.path(let segments), .int(let n)):
            guard n >= 0, n < segments.count else {
                throw RulesFault(message: "index \(n) is out of range (size \(segments.count))", location: location)
            }
            return .string(segments[Int(n)])
        case (.string(let text), .int(let n)):
            let characters = Array(text)
            guard n >= 0, n < characters.count else {
                throw RulesFault(message: "index \(n) is out of range (size \(characters.count))", location: location)
            }
            return .string(String(characters[Int(n)]))
        default:
            throw RulesFault(message: "\(value.typeName)[\(index.typeName)] is not defined", location: location)
        }
    }

    static func slice(_ value: RulesValue, _ lower: RulesValue?, _ upper: RulesValue?, _ location: RulesLocation)
        throws -> RulesValue
    {
        func bound(_ value: RulesValue?, _ fallback: Int, _ count: Int) throws -> Int {
            guard let value else { return fallback }
            guard case .int(let n) = value, n >= 0, n <= count else {
                throw RulesFault(message: "a range's bounds are integers from 0 to \(count)", location: location)
            }
            return Int(n)
        }
        switch value {
        case .list(let items):
            let low = try bound(lower, 0, items.count)
            let high = try bound(upper, items.count, items.count)
            guard low <= high else { throw RulesFault(message: "the range is reversed", location: location) }
            return .list(Array(items[low..<high]))
        case .string(let text):
            let characters = Array(text)
            let low = try bound(lower, 0, characters.count)
            let high = try bound(upper, characters.count, characters.count)
            guard low <= high else { throw RulesFault(message: "the range is reversed", location: location) }
            return .string(String(characters[low..<high]))
        default:
            throw RulesFault(message: "\(value.typeName) cannot be sliced", location: location)
        }
    }

    // MARK: Calls

    private func call(_ name: String, _ arguments: [RulesExpression], _ scope: Scope, _ location: RulesLocation)
        async throws -> RulesValue
    {
        var values: [RulesValue] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try await evaluate(argument, scope)) }
        if let function = scope.functions[name] {
            guard scope.depth < Self.maximumDepth else {
                throw RulesFault(message: "function calls nest deeper than \(Self.maximumDepth)", location: location)
            }
            var inner = scope
            inner.depth += 1
            for (parameter, value) in zip(function.parameters, values) { inner.bindings[parameter] = value }
            for (variable, expression) in function.lets {
                inner.bindings[variable] = try await evaluate(expression, inner)
            }
            return try await evaluate(function.body, inner)
        }
        switch name {
        case "get", "getAfter", "exists", "existsAfter":
            guard values.count == 1, case .path(let segments) = values[0] else {
                throw RulesFault(message: "\(name)() takes one path", location: location)
            }
            let document = try await read(segments, after: name.hasSuffix("After"), location)
            if name.hasPrefix("exists") {
                if case .null = document { return .bool(false) }
                return .bool(true)
            }
            return document
        default:
            return try Self.builtin(name, values, location)
        }
    }

    /// `get(/databases/(default)/documents/…)`: the document as `resource` would be (`data`, `id`, `__name__`), or
    /// null when it is missing. Each distinct document counts once toward the limit.
    private func read(_ segments: [String], after: Bool, _ location: RulesLocation) async throws -> RulesValue {
        guard segments.count >= 5, segments[0] == "databases", segments[2] == "documents",
            (segments.count - 3) % 2 == 0
        else {
            throw RulesFault(
                message: "/\(segments.joined(separator: "/")) is not a document path",
                location: location)
        }
        guard segments[1] == database else {
            throw RulesFault(message: "rules read documents of their own database only", location: location)
        }
        let relative = segments[3...].joined(separator: "/")
        let key = (after ? "after:" : "before:") + relative
        if let known = reads.documents[key] { return known }
        guard reads.documents.count < reads.maximum else {
            throw RulesFault(
                message: "more than \(reads.maximum) documents were read by get() and exists()", location: location)
        }
        guard let reader else {
            throw RulesFault(message: "documents cannot be read here", location: location)
        }
        let value: RulesValue
        do {
            if let data = try await reader.document(relative, after: after) {
                value = Self.resource(data: data, segments: segments)
            } else {
                value = .null
            }
        } catch {
            throw RulesFault(message: "could not read \(relative): \(error)", location: location)
        }
        reads.documents[key] = value
        return value
    }

    /// `resource` for a document at the full path `segments`.
    static func resource(data: DocumentData, segments: [String]) -> RulesValue {
        .map([
            "data": RulesValue.data(data, database: segments.count > 1 ? segments[1] : "(default)"),
            "id": .string(segments.last ?? ""),
            "__name__": .path(segments),
        ])
    }
}
