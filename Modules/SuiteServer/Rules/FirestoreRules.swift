package import Documents
import Foundation
package import SuiteCore

/// Rules in Firestore's own language (`firestore.rules`), evaluated as Firestore evaluates them: every `match` whose
/// pattern fits the document, every `allow` naming the operation; the request is allowed when one condition is true.
///
/// ```swift
/// let rules = try FirestoreRules(source: """
///     rules_version = '2';
///     service cloud.firestore {
///       match /databases/{database}/documents {
///         match /users/{userId} {
///           allow read, write: if request.auth != null && request.auth.uid == userId;
///         }
///       }
///     }
///     """)
/// ```
/// A construct outside the supported subset is refused here, with its line and column; a condition that fails
/// while it is evaluated (a missing field, a wrong type) denies.
public struct FirestoreRules: Sendable {
    /// The file's name, as errors and decisions cite it.
    public let fileName: String
    let version: Int
    let blocks: [Block]

    /// A `match` block flattened: its whole pattern from the root, its allows, and the functions in reach.
    struct Block: Sendable {
        var pattern: [RulesPatternSegment]
        var allows: [RulesAllow]
        var functions: [String: RulesFunction]
        /// Per allow: whether its condition reads the stored document (`resource`) or `request.method`, directly or
        /// through the functions it calls. A write judged only by allows that do not, and that name create and
        /// update alike, needs no read of the document it replaces.
        var readsStored: [Bool] = []
    }

    /// Parses and checks `source`; throws a ``ServerError`` naming the line and column of the first problem.
    public init(source: String, fileName: String = "firestore.rules") throws {
        let file: RulesFile
        do {
            var parser = try RulesParser(source, fileName: fileName)
            file = try parser.parseFile()
        } catch let error as RulesSyntaxError {
            throw Self.error(error)
        }
        self.fileName = fileName
        version = file.version
        var blocks: [Block] = []
        do {
            let checker = RulesChecker(file: file, fileName: fileName)
            try checker.check()
            func flatten(_ match: RulesMatch, prefix: [RulesPatternSegment], functions: [String: RulesFunction]) {
                var functions = functions
                for function in match.functions { functions[function.name] = function }
                let pattern = prefix + match.pattern
                blocks.append(Block(pattern: pattern, allows: match.allows, functions: functions))
                for child in match.children { flatten(child, prefix: pattern, functions: functions) }
            }
            let globals = Dictionary(file.functions.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
            for match in file.matches { flatten(match, prefix: [], functions: globals) }
            for block in blocks where file.version < 2 {
                if let index = block.pattern.firstIndex(where: {
                    if case .recursive = $0 { true } else { false }
                }), index != block.pattern.count - 1 {
                    throw RulesSyntaxError(
                        fileName: fileName, location: block.allows.first?.location ?? RulesLocation(line: 1, column: 1),
                        message: "a {name=**} wildcard must end the pattern under rules_version '1'",
                        hint: "start the file with rules_version = '2';")
                }
            }
        } catch let error as RulesSyntaxError {
            throw Self.error(error)
        }
        for index in blocks.indices {
            let block = blocks[index]
            blocks[index].readsStored = block.allows.map { allow in
                allow.condition.map { Self.readsStored($0, functions: block.functions) } ?? false
            }
        }
        self.blocks = blocks
    }

    /// Whether `expression` reads `resource` or `request.method`, following calls into `functions`.
    static func readsStored(_ expression: RulesExpression, functions: [String: RulesFunction]) -> Bool {
        var visited: Set<String> = []
        func walk(_ expression: RulesExpression) -> Bool {
            switch expression {
            case .literal: return false
            case .identifier(let name, _): return name == "resource"
            case .member(.identifier("request", _), "method", _): return true
            case .list(let items): return items.contains(where: walk)
            case .map(let entries): return entries.contains { walk($0.0) || walk($0.1) }
            case .path(let parts, _):
                return parts.contains { if case .expression(let inner) = $0 { walk(inner) } else { false } }
            case .member(let base, _, _): return walk(base)
            case .index(let a, let b, _), .binary(_, let a, let b, _): return walk(a) || walk(b)
            case .range(let base, let lower, let upper, _):
                return walk(base) || (lower.map(walk) ?? false) || (upper.map(walk) ?? false)
            case .call(let name, let arguments, _):
                if arguments.contains(where: walk) { return true }
                guard let function = functions[name], visited.insert(name).inserted else { return false }
                return function.lets.contains { walk($0.1) } || walk(function.body)
            case .method(let base, _, let arguments, _): return walk(base) || arguments.contains(where: walk)
            case .unary(_, let operand, _), .isType(let operand, _, _): return walk(operand)
            case .conditional(let a, let b, let c, _): return walk(a) || walk(b) || walk(c)
            }
        }
        return walk(expression)
    }

    /// Whether a write to `path` must read the document it replaces to be judged: some allow that could judge it reads
    /// `resource` or `request.method`, or names create without update (or update without create), so whether the
    /// document exists decides.
    package func needsStoredDocument(_ path: String, database: String = "(default)") -> Bool {
        let request = RulesRequest(method: .update, path: path, auth: nil)
        var elements = request.elements
        elements[1] = .known(database)
        for block in blocks {
            guard Self.bind(block.pattern, to: elements, version: version) != nil else { continue }
            for (allow, reads) in zip(block.allows, block.readsStored) {
                let create = allow.methods.contains(.create)
                let update = allow.methods.contains(.update)
                guard create || update || allow.methods.contains(.delete) else { continue }
                if reads || create != update { return true }
            }
        }
        return false
    }

    /// Reads and parses the file at `path`.
    public init(contentsOf path: String) throws {
        let source: String
        do { source = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ServerError(
                .invalidRequest, "cannot read the rules file \(path)", hint: "check the path and that it is UTF-8")
        }
        try self.init(source: source, fileName: path)
    }

    static func error(_ error: RulesSyntaxError) -> ServerError {
        ServerError(
            .invalidRequest, "\(error.fileName):\(error.location): \(error.message)",
            hint: error.hint ?? "see Firestore's rules language: https://firebase.google.com/docs/rules/rules-language")
    }

    // MARK: Deciding

    /// Decides `request`; `reader` serves `get()` and `exists()`. For a list, every document the query could return
    /// must be allowed: for each value an `in` allows, some `allow` must hold.
    package func decide(_ request: RulesRequest, reader: (any RulesDocumentReader)? = nil) async -> RulesDecision {
        await decide(request, reader: reader, reads: RulesEvaluation.Reads(maximum: request.maximumDocumentReads))
    }

    /// ``decide(_:reader:)`` counting document reads in `reads`, shared by the writes of one commit.
    func decide(_ request: RulesRequest, reader: (any RulesDocumentReader)?, reads: RulesEvaluation.Reads) async
        -> RulesDecision
    {
        let path = request.elements
        var candidates: [(allow: RulesAllow, scope: RulesEvaluation.Scope)] = []
        for block in blocks {
            guard let bindings = Self.bind(block.pattern, to: path, version: version) else { continue }
            for allow in block.allows where allow.methods.contains(request.method) {
                candidates.append((allow, RulesEvaluation.Scope(bindings: bindings, functions: block.functions)))
            }
        }
        guard !candidates.isEmpty else {
            return RulesDecision(
                allowed: false, rule: nil,
                reason: "no allow \(request.method.rawValue) matches /\(request.displayPath)")
        }
        let value = request.value
        var decidedBy: RulesAllow?
        var reasons: [String] = []
        for resource in request.resources {
            var allowed: RulesAllow?
            for candidate in candidates {
                guard let condition = candidate.allow.condition else {
                    allowed = candidate.allow
                    break
                }
                let evaluation = RulesEvaluation(
                    request: value, resource: resource, database: request.database, reader: reader, reads: reads)
                do {
                    if try await evaluation.condition(condition, candidate.scope) {
                        allowed = candidate.allow
                        break
                    }
                    reasons.append("\(describe(candidate.allow)) is false")
                } catch let fault as RulesFault {
                    let place = fault.location.map { " at \($0)" } ?? ""
                    reasons.append("\(describe(candidate.allow)) failed\(place): \(fault.message)")
                } catch {
                    reasons.append("\(describe(candidate.allow)) failed: \(error)")
                }
            }
            guard let allowed else {
                var seen: Set<String> = []
                let distinct = reasons.filter { seen.insert($0).inserted }
                return RulesDecision(allowed: false, rule: nil, reason: "denied: " + distinct.joined(separator: "; "))
            }
            if decidedBy == nil { decidedBy = allowed }
        }
        let rule = decidedBy ?? candidates[0].allow
        return RulesDecision(allowed: true, rule: rule.location, reason: "allowed by \(describe(rule))")
    }

    private func describe(_ allow: RulesAllow) -> String {
        "allow \(allow.written.joined(separator: ", ")) at \(fileName):\(allow.location)"
    }

    /// The wildcards' values when `pattern` fits `path`, or nil. An unknown document id (a list's) fits only a
    /// `{wildcard}` (left unbound) or a `{name=**}`; a collection group's unknown parent path fits only a `{name=**}`.
    static func bind(_ pattern: [RulesPatternSegment], to path: [RulesRequest.Element], version: Int)
        -> [String: RulesValue]?
    {
        var bindings: [String: RulesValue] = [:]
        func match(_ p: Int, _ s: Int) -> Bool {
            if p == pattern.count { return s == path.count }
            switch pattern[p] {
            case .literal(let text):
                guard s < path.count, case .known(let segment) = path[s], segment == text else { return false }
                return match(p + 1, s + 1)
            case .single(let name):
                guard s < path.count else { return false }
                switch path[s] {
                case .known(let segment): bindings[name] = .string(segment)
                case .anyID: bindings[name] = nil
                case .anyParent: return false
                }
                return match(p + 1, s + 1)
            case .recursive(let name):
                let minimum = version >= 2 ? 0 : 1
                var count = path.count - s
                while count >= minimum {
                    if match(p + 1, s + count) {
                        bindings[name] = .path(
                            path[s..<(s + count)].compactMap { if case .known(let text) = $0 { text } else { nil } })
                        return true
                    }
                    count -= 1
                }
                return false
            }
        }
        return match(0, 0) ? bindings : nil
    }
}

/// A request as rules see it.
package struct RulesRequest: Sendable {
    /// What the request does.
    package var method: RulesMethod
    /// The document's path; for a list, the collection's path followed by an unknown id (nil).
    package var segments: [String?]
    /// Whether a list spans a collection group (`segments` then ends with the group's id and nil).
    package var collectionGroup = false
    /// The database (`(default)` for the JSON API).
    package var database = "(default)"
    /// `request.auth`: the caller's id and its token's claims; nil when unauthenticated.
    package var auth: (uid: String, claims: [String: JSONValue])?
    /// `resource.data`: the stored document (nil when missing); ignored for a list.
    package var stored: DocumentData?
    /// `request.resource.data`: the document once written (create and update).
    package var written: DocumentData?
    /// `request.time`.
    package var time = Timestamp(Date())
    /// A list's query: its limit, offset, order and the values it fixes per field (`==` one, `in` several).
    package var query: Query?
    /// How many documents `get()` and `exists()` may read: 10 for one document, 20 for a query or a request of
    /// several writes (as Google's emulator counts them).
    package var maximumDocumentReads = 10

    /// A list's query as rules see it.
    package struct Query: Sendable {
        package var limit: Int?
        package var offset: Int?
        package var orderBy: [String]
        /// Field path (dotted) → the values the query allows: one for `==`, each of an `in`'s.
        package var fixed: [String: [DocumentValue]]

        package init(
            limit: Int? = nil, offset: Int? = nil, orderBy: [String] = [], fixed: [String: [DocumentValue]] = [:]
        ) {
            self.limit = limit
            self.offset = offset
            self.orderBy = orderBy
            self.fixed = fixed
        }
    }

    package init(method: RulesMethod, path: String, auth: (uid: String, claims: [String: JSONValue])?) {
        self.method = method
        segments = path.split(separator: "/").map { String($0) }
        if method == .list {
            segments.append(nil)
            maximumDocumentReads = 20
        }
        self.auth = auth
    }

    var fullPath: [String] { ["databases", database, "documents"] + segments.map { $0 ?? "{id}" } }

    /// A segment of the path rules match: known, a list's unknown document id, or a collection group's unknown
    /// parent path.
    package enum Element: Sendable {
        case known(String)
        case anyID
        case anyParent
    }

    /// The path rules match, from `databases`.
    var elements: [Element] {
        let head: [Element] = [.known("databases"), .known(database), .known("documents")]
        if collectionGroup {
            return head + [.anyParent] + segments.map { $0.map(Element.known) ?? .anyID }
        }
        return head + segments.map { $0.map(Element.known) ?? .anyID }
    }

    var displayPath: String {
        (collectionGroup ? "{parent=**}/" : "") + segments.map { $0 ?? "{id}" }.joined(separator: "/")
    }

    /// `request`.
    var value: RulesValue {
        var fields: [String: RulesValue] = [
            "method": .string(method.rawValue),
            "path": .path(fullPath),
            "time": .timestamp(time.microseconds &* 1_000),
            "auth": auth.map { auth in
                .map(["uid": .string(auth.uid), "token": .map(auth.claims.mapValues(RulesValue.init(json:)))])
            } ?? .null,
        ]
        if let written {
            fields["resource"] = RulesEvaluation.resource(data: written, segments: fullPath)
        } else {
            fields["resource"] = .null
        }
        if let query {
            fields["query"] = .map([
                "limit": query.limit.map { .int(Int64($0)) } ?? .null,
                "offset": query.offset.map { .int(Int64($0)) } ?? .null,
                "orderBy": .list(query.orderBy.map { .string($0) }),
            ])
        }
        return .map(fields)
    }

    /// `resource` for each evaluation: one, or for a list each combination of the values an `in` allows (every one
    /// must be allowed).
    var resources: [RulesValue] {
        guard method == .list else {
            return [stored.map { RulesEvaluation.resource(data: $0, segments: fullPath) } ?? .null]
        }
        var combinations: [[String: RulesValue]] = [[:]]
        for (field, values) in (query?.fixed ?? [:]).sorted(by: { $0.key < $1.key }) {
            combinations = combinations.flatMap { partial in
                values.prefix(30).map { value in
                    var next = partial
                    next[field] = RulesValue(value, database: database)
                    return next
                }
            }
            if combinations.count > 900 { combinations = Array(combinations.prefix(900)) }
        }
        // As Firestore judges a query: `resource.data` holds exactly the fields the query fixes, so reading any
        // other field fails (rules are not filters), and `in`, `size()` and `keys()` see only those fields.
        return combinations.map { fixed in
            var data: [String: RulesValue] = [:]
            for (field, value) in fixed {
                Self.insert(value, at: field.split(separator: ".").map(String.init)[...], into: &data)
            }
            return .map(["data": .map(data)])
        }
    }

    private static func insert(_ value: RulesValue, at path: ArraySlice<String>, into map: inout [String: RulesValue]) {
        guard let key = path.first else { return }
        if path.count == 1 {
            map[key] = value
            return
        }
        var inner: [String: RulesValue] = [:]
        if case .map(let existing)? = map[key] { inner = existing }
        insert(value, at: path.dropFirst(), into: &inner)
        map[key] = .map(inner)
    }
}

/// What the rules decided, and which rule decided it.
package struct RulesDecision: Sendable {
    /// Whether the request may go on.
    package var allowed: Bool
    /// The `allow` that allowed it.
    package var rule: RulesLocation?
    /// A sentence for logs and `suite rules test`: the rule that allowed, or why each candidate denied.
    package var reason: String
}
