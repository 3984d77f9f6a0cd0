import Foundation
import SuiteCore

/// Operators, built-in functions and methods of the rules language.
extension RulesEvaluation {
    /// Functions callable by name (besides the file's own), with their argument counts.
    static let builtinArity: [String: ClosedRange<Int>] = [
        "get": 1...1, "getAfter": 1...1, "exists": 1...1, "existsAfter": 1...1, "path": 1...1, "int": 1...1,
        "float": 1...1, "string": 1...1, "debug": 1...1, "math.abs": 1...1, "math.ceil": 1...1,
        "math.floor": 1...1, "math.round": 1...1, "math.sqrt": 1...1, "math.pow": 2...2, "math.isInfinite": 1...1,
        "math.isInfinity": 1...1,
        "math.isNaN": 1...1, "timestamp.date": 3...3, "timestamp.value": 1...1, "duration.value": 2...2,
        "duration.time": 4...4, "duration.abs": 1...1, "latlng.value": 2...2,
    ]

    /// Every method name some type has.
    static let methodNames: Set<String> = [
        "size", "matches", "lower", "upper", "trim", "split", "replace", "toUtf8", "hasAll", "hasAny", "hasOnly",
        "join", "toSet", "concat", "removeAll", "union", "intersection", "difference", "keys", "values", "get",
        "diff", "addedKeys", "removedKeys", "changedKeys", "affectedKeys", "unchangedKeys", "toMillis", "year",
        "month", "day", "hours", "minutes", "seconds", "nanos", "dayOfWeek", "dayOfYear", "date", "time",
        "latitude", "longitude", "toBase64", "toHexString",
    ]

    // MARK: Operators

    static func binary(_ symbol: String, _ a: RulesValue, _ b: RulesValue, _ location: RulesLocation) throws
        -> RulesValue
    {
        func fail() -> RulesFault {
            RulesFault(message: "\(a.typeName) \(symbol) \(b.typeName) is not defined", location: location)
        }
        func overflow() -> RulesFault { RulesFault(message: "integer overflow in \(symbol)", location: location) }
        switch symbol {
        case "==": return .bool(a.equals(b))
        case "!=": return .bool(!a.equals(b))
        case "<", "<=", ">", ">=":
            guard let order = a.compare(b) else { throw fail() }
            switch symbol {
            case "<": return .bool(order < 0)
            case "<=": return .bool(order <= 0)
            case ">": return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case "in":
            guard let found = b.contains(a) else { throw fail() }
            return .bool(found)
        default: break
        }
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result: (partialValue: Int64, overflow: Bool)
            switch symbol {
            case "+": result = x.addingReportingOverflow(y)
            case "-": result = x.subtractingReportingOverflow(y)
            case "*": result = x.multipliedReportingOverflow(by: y)
            case "/", "%":
                guard y != 0 else { throw RulesFault(message: "division by zero", location: location) }
                result = symbol == "/" ? x.dividedReportingOverflow(by: y) : x.remainderReportingOverflow(dividingBy: y)
            default: throw fail()
            }
            if result.overflow { throw overflow() }
            return .int(result.partialValue)
        case (.int, .float), (.float, .int), (.float, .float):
            let x = a.number ?? 0
            let y = b.number ?? 0
            switch symbol {
            case "+": return .float(x + y)
            case "-": return .float(x - y)
            case "*": return .float(x * y)
            case "/": return .float(x / y)
            case "%": return .float(x.truncatingRemainder(dividingBy: y))
            default: throw fail()
            }
        case (.string(let x), .string(let y)) where symbol == "+": return .string(x + y)
        case (.list(let x), .list(let y)) where symbol == "+": return .list(x + y)
        case (.timestamp(let t), .duration(let d)) where symbol == "+" || symbol == "-":
            let result = symbol == "+" ? t.addingReportingOverflow(d) : t.subtractingReportingOverflow(d)
            if result.overflow { throw overflow() }
            return .timestamp(result.partialValue)
        case (.duration(let d), .timestamp(let t)) where symbol == "+":
            let result = t.addingReportingOverflow(d)
            if result.overflow { throw overflow() }
            return .timestamp(result.partialValue)
        case (.timestamp(let x), .timestamp(let y)) where symbol == "-":
            let result = x.subtractingReportingOverflow(y)
            if result.overflow { throw overflow() }
            return .duration(result.partialValue)
        case (.duration(let x), .duration(let y)) where symbol == "+" || symbol == "-":
            let result = symbol == "+" ? x.addingReportingOverflow(y) : x.subtractingReportingOverflow(y)
            if result.overflow { throw overflow() }
            return .duration(result.partialValue)
        default:
            throw fail()
        }
    }

    // MARK: Built-in functions

    static func builtin(_ name: String, _ values: [RulesValue], _ location: RulesLocation) throws -> RulesValue {
        func fail(_ message: String) -> RulesFault { RulesFault(message: "\(name)(): \(message)", location: location) }
        guard let arity = builtinArity[name] else { throw fail("no such function") }
        guard arity.contains(values.count) else { throw fail("takes \(arity.lowerBound) arguments") }
        func number(_ index: Int) throws -> Double {
            guard let n = values[index].number else { throw fail("needs a number") }
            return n
        }
        func integer(_ index: Int) throws -> Int64 {
            guard case .int(let n) = values[index] else { throw fail("needs an int") }
            return n
        }
        switch name {
        case "path":
            guard case .string(let text) = values[0] else { throw fail("needs a string") }
            return .path(text.split(separator: "/").map(String.init))
        case "int":
            switch values[0] {
            case .int: return values[0]
            case .float(let d):
                guard d.isFinite, let n = Int64(exactly: d.rounded(.towardZero)) else { throw fail("out of range") }
                return .int(n)
            case .string(let s):
                guard let n = Int64(s) else { throw fail("'\(s)' is not an integer") }
                return .int(n)
            default: throw fail("cannot convert \(values[0].typeName)")
            }
        case "float":
            switch values[0] {
            case .int(let n): return .float(Double(n))
            case .float: return values[0]
            case .string(let s):
                guard let d = Double(s) else { throw fail("'\(s)' is not a number") }
                return .float(d)
            default: throw fail("cannot convert \(values[0].typeName)")
            }
        case "string":
            switch values[0] {
            case .string: return values[0]
            case .int(let n): return .string(String(n))
            case .float(let d): return .string(String(d))
            case .bool(let b): return .string(String(b))
            case .null: return .string("null")
            case .path(let segments): return .string("/" + segments.joined(separator: "/"))
            default: throw fail("cannot convert \(values[0].typeName)")
            }
        case "debug": return values[0]
        case "math.abs":
            if case .int(let n) = values[0] {
                guard n != .min else { throw fail("integer overflow") }
                return .int(abs(n))
            }
            return .float(abs(try number(0)))
        case "math.ceil": return .int(try Self.integral(try number(0).rounded(.up), location))
        case "math.floor": return .int(try Self.integral(try number(0).rounded(.down), location))
        case "math.round": return .int(try Self.integral(try number(0).rounded(.toNearestOrAwayFromZero), location))
        case "math.sqrt": return .float(try number(0).squareRoot())
        case "math.pow": return .float(pow(try number(0), try number(1)))
        // The reference names it isInfinite; Google's emulator knows isInfinity: both are read.
        case "math.isInfinite", "math.isInfinity": return .bool(try number(0).isInfinite)
        case "math.isNaN": return .bool(try number(0).isNaN)
        case "timestamp.date":
            let (year, month, day) = (try integer(0), try integer(1), try integer(2))
            guard (1...9_999).contains(year), (1...12).contains(month), (1...31).contains(day),
                RFC3339.civilFromDays(RFC3339.daysFromCivil(year: year, month: month, day: day)) == (year, month, day)
            else {
                throw fail("\(year)-\(month)-\(day) is not a date")
            }
            return .timestamp(RFC3339.daysFromCivil(year: year, month: month, day: day) &* 86_400_000_000_000)
        case "timestamp.value":
            let millis = try integer(0)
            let result = millis.multipliedReportingOverflow(by: 1_000_000)
            if result.overflow { throw fail("out of range") }
            return .timestamp(result.partialValue)
        case "duration.value":
            guard case .string(let unit) = values[1] else { throw fail("the unit is a string") }
            let units: [String: Double] = [
                "w": 604_800e9, "d": 86_400e9, "h": 3_600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "ns": 1,
            ]
            guard let scale = units[unit] else { throw fail("unit '\(unit)' is not w, d, h, m, s, ms or ns") }
            let nanos = try number(0) * scale
            guard nanos.isFinite, abs(nanos) < 9.2e18 else { throw fail("out of range") }
            return .duration(Int64(nanos))
        case "duration.time":
            let parts = [try integer(0), try integer(1), try integer(2), try integer(3)]
            let nanos = Double(parts[0]) * 3_600e9 + Double(parts[1]) * 60e9 + Double(parts[2]) * 1e9 + Double(parts[3])
            guard abs(nanos) < 9.2e18 else { throw fail("out of range") }
            return .duration(Int64(nanos))
        case "duration.abs":
            guard case .duration(let n) = values[0], n != .min else { throw fail("needs a duration") }
            return .duration(abs(n))
        case "latlng.value":
            let (latitude, longitude) = (try number(0), try number(1))
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { throw fail("out of range") }
            return .latlng(latitude, longitude)
        default:
            throw fail("no such function")
        }
    }

    private static func integral(_ value: Double, _ location: RulesLocation) throws -> Int64 {
        guard value.isFinite, let n = Int64(exactly: value) else {
            throw RulesFault(message: "the number is out of an int's range", location: location)
        }
        return n
    }

    // MARK: Methods

    static func method(_ receiver: RulesValue, _ name: String, _ arguments: [RulesValue], _ location: RulesLocation)
        throws -> RulesValue
    {
        func fail(_ message: String? = nil) -> RulesFault {
            RulesFault(
                message: message ?? "\(receiver.typeName) has no method \(name)() taking \(arguments.count) arguments",
                location: location)
        }
        func argument(_ index: Int) throws -> RulesValue {
            guard index < arguments.count else { throw fail() }
            return arguments[index]
        }
        func items(_ value: RulesValue) throws -> [RulesValue] {
            switch value {
            case .list(let items), .set(let items): return items
            default: throw fail("\(name)() takes a list or a set, not \(value.typeName)")
            }
        }
        func string(_ value: RulesValue) throws -> String {
            guard case .string(let text) = value else { throw fail("\(name)() takes a string") }
            return text
        }
        switch (receiver, name) {
        case (.string(let text), "size"): return .int(Int64(text.count))
        case (.string(let text), "matches"): return .bool(try Self.matches(text, try string(try argument(0)), location))
        case (.string(let text), "lower"): return .string(text.lowercased())
        case (.string(let text), "upper"): return .string(text.uppercased())
        case (.string(let text), "trim"): return .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case (.string(let text), "split"):
            let pattern = try string(try argument(0))
            guard !pattern.isEmpty else { throw fail("split() needs a separator") }
            do {
                let regex = try Regex(pattern)
                return .list(
                    text.split(separator: regex, omittingEmptySubsequences: false).map { .string(String($0)) })
            } catch {
                throw fail("'\(pattern)' is not a regular expression")
            }
        case (.string(let text), "replace"):
            let pattern = try string(try argument(0))
            let replacement = try string(try argument(1))
            do {
                let regex = try Regex(pattern)
                return .string(text.replacing(regex, with: replacement))
            } catch {
                throw fail("'\(pattern)' is not a regular expression")
            }
        case (.string(let text), "toUtf8"): return .bytes(Array(text.utf8))
        case (.bytes(let bytes), "size"): return .int(Int64(bytes.count))
        case (.bytes(let bytes), "toBase64"): return .string(Data(bytes).base64EncodedString())
        case (.bytes(let bytes), "toHexString"):
            return .string(bytes.map { String(format: "%02X", $0) }.joined())
        case (.list(let list), "size"), (.set(let list), "size"): return .int(Int64(list.count))
        case (.list(let list), "hasAll"), (.set(let list), "hasAll"):
            let other = try items(try argument(0))
            return .bool(other.allSatisfy { item in list.contains { $0.equals(item) } })
        case (.list(let list), "hasAny"), (.set(let list), "hasAny"):
            let other = try items(try argument(0))
            return .bool(other.contains { item in list.contains { $0.equals(item) } })
        case (.list(let list), "hasOnly"), (.set(let list), "hasOnly"):
            let other = try items(try argument(0))
            return .bool(list.allSatisfy { item in other.contains { $0.equals(item) } })
        case (.list(let list), "join"):
            let separator = try string(try argument(0))
            return .string(try list.map { try string($0) }.joined(separator: separator))
        case (.list(let list), "toSet"): return .set(RulesValue.distinct(list))
        case (.list(let list), "concat"): return .list(list + (try items(try argument(0))))
        case (.list(let list), "removeAll"):
            let other = try items(try argument(0))
            return .list(list.filter { item in !other.contains { $0.equals(item) } })
        case (.set(let set), "union"): return .set(RulesValue.distinct(set + (try items(try argument(0)))))
        case (.set(let set), "intersection"):
            let other = try items(try argument(0))
            return .set(set.filter { item in other.contains { $0.equals(item) } })
        case (.set(let set), "difference"):
            let other = try items(try argument(0))
            return .set(set.filter { item in !other.contains { $0.equals(item) } })
        case (.map(let fields), "size"): return .int(Int64(fields.count))
        case (.map(let fields), "keys"): return .list(fields.keys.sorted().map { .string($0) })
        case (.map(let fields), "values"): return .list(fields.sorted { $0.key < $1.key }.map(\.value))
        case (.map(let fields), "get"):
            let fallback = try argument(1)
            switch try argument(0) {
            case .string(let key): return fields[key] ?? fallback
            case .list(let keys):
                var current = RulesValue.map(fields)
                for key in keys {
                    guard case .string(let name) = key, case .map(let inner) = current, let next = inner[name] else {
                        return fallback
                    }
                    current = next
                }
                return current
            default: throw fail("get() takes a key or a list of keys")
            }
        case (.map(let fields), "diff"):
            guard case .map(let other) = try argument(0) else { throw fail("diff() takes a map") }
            return .mapDiff(new: fields, old: other)
        case (.mapDiff(let new, let old), _):
            let added = new.keys.filter { old[$0] == nil }
            let removed = old.keys.filter { new[$0] == nil }
            let changed = new.keys.filter { key in old[key].map { !$0.equals(new[key] ?? .null) } ?? false }
            let unchanged = new.keys.filter { key in old[key].map { $0.equals(new[key] ?? .null) } ?? false }
            let keys: [String]
            switch name {
            case "addedKeys": keys = added
            case "removedKeys": keys = removed
            case "changedKeys": keys = changed
            case "unchangedKeys": keys = unchanged
            case "affectedKeys": keys = added + removed + changed
            default: throw fail()
            }
            return .set(keys.sorted().map { .string($0) })
        case (.timestamp(let nanos), _):
            return try Self.timestampMethod(nanos, name, fail)
        case (.duration(let nanos), "seconds"): return .int(nanos / 1_000_000_000)
        case (.duration(let nanos), "nanos"): return .int(nanos % 1_000_000_000)
        case (.latlng(let latitude, _), "latitude"): return .float(latitude)
        case (.latlng(_, let longitude), "longitude"): return .float(longitude)
        default:
            throw fail()
        }
    }

    private static func timestampMethod(_ nanos: Int64, _ name: String, _ fail: (String?) -> RulesFault) throws
        -> RulesValue
    {
        // Floored division without an intermediate that could overflow (a timestamp may lie near Int64.min).
        let (quotient, remainder) = nanos.quotientAndRemainder(dividingBy: 86_400_000_000_000)
        let day = remainder < 0 ? quotient - 1 : quotient
        let within = remainder < 0 ? remainder + 86_400_000_000_000 : remainder
        let (year, month, dayOfMonth) = RFC3339.civilFromDays(day)
        switch name {
        case "toMillis":
            let (millis, rest) = nanos.quotientAndRemainder(dividingBy: 1_000_000)
            return .int(rest < 0 ? millis - 1 : millis)
        case "year": return .int(year)
        case "month": return .int(month)
        case "day": return .int(dayOfMonth)
        case "hours": return .int(within / 3_600_000_000_000)
        case "minutes": return .int(within / 60_000_000_000 % 60)
        case "seconds": return .int(within / 1_000_000_000 % 60)
        case "nanos": return .int(within % 1_000_000_000)
        case "dayOfWeek":
            // 1970-01-01 was a Thursday; Firestore numbers Monday 1 … Sunday 7.
            let weekday = ((day % 7) + 7 + 3) % 7 + 1
            return .int(weekday)
        case "dayOfYear": return .int(day - RFC3339.daysFromCivil(year: year, month: 1, day: 1) + 1)
        case "date":
            let (midnight, overflow) = day.multipliedReportingOverflow(by: 86_400_000_000_000)
            guard !overflow else { throw fail("the date of this timestamp is out of range") }
            return .timestamp(midnight)
        case "time": return .duration(within)
        default: throw fail(nil)
        }
    }

    /// `matches()`: the whole string matches the pattern.
    static func matches(_ text: String, _ pattern: String, _ location: RulesLocation) throws -> Bool {
        let regex: Regex<AnyRegexOutput>
        do { regex = try Regex(pattern) } catch {
            throw RulesFault(message: "'\(pattern)' is not a regular expression", location: location)
        }
        return text.wholeMatch(of: regex) != nil
    }
}

extension RulesValue {
    /// An int or a float as a Double.
    var number: Double? {
        switch self {
        case .int(let n): Double(n)
        case .float(let d): d
        default: nil
        }
    }
}
