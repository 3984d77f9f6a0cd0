import Foundation
public import SuiteCore

// JSON at the edges (the `suite docs` commands): results as JSON, `--where` expressions, batch files.

extension QuerySnapshot {
    /// The documents as a JSON array of ``DocumentSnapshot/json`` objects.
    public var json: JSONValue { .array(documents.map(\.json)) }
}

extension DocumentChange {
    /// `{"type":"added|modified|removed","path","oldIndex","newIndex","document":{…}}` (indexes null when absent).
    public var json: JSONValue {
        .object([
            "type": .string(kind.rawValue),
            "path": .string(document.path.string),
            "oldIndex": oldIndex.map { .int(Int64($0)) } ?? .null,
            "newIndex": newIndex.map { .int(Int64($0)) } ?? .null,
            "document": document.json,
        ])
    }
}

extension AggregateSnapshot {
    /// `{"count": 3, "sum(points)": 40, …}` in tagged JSON.
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        for (alias, value) in values { object[alias] = DocumentJSON.json(from: value) }
        return .object(object)
    }
}

extension FieldValue {
    /// A transform written in JSON: `{"increment": 5}`, `{"increment": 1.5}`, `"serverTimestamp"`
    /// (or `{"serverTimestamp": true}`), `{"arrayUnion": [...]}`, `{"arrayRemove": [...]}`, `"delete"`
    /// (or `{"delete": true}`).
    package static func transform(fromJSON json: JSONValue) throws -> FieldValue {
        if let name = json.stringValue {
            switch name {
            case "serverTimestamp": return .serverTimestamp
            case "delete": return .delete
            default: break
            }
        }
        if let object = json.objectValue, object.count == 1, let (name, argument) = object.first {
            switch name {
            case "increment":
                switch argument {
                case .int(let n): return .increment(n)
                case .double(let d): return .increment(d)
                default:
                    throw DocumentsError(
                        .invalidValue, "increment needs a number, got \(argument.typeDescription)",
                        hint: "e.g. {\"increment\": 10}")
                }
            case "serverTimestamp", "delete":
                return name == "delete" ? .delete : .serverTimestamp
            case "maximum", "minimum":
                let operand = try DocumentJSON.value(from: argument)
                switch operand {
                case .int, .double: return name == "maximum" ? .maximum(operand) : .minimum(operand)
                default:
                    throw DocumentsError(
                        .invalidValue, "\(name) needs a number, got \(argument.typeDescription)",
                        hint: "e.g. {\"\(name)\": 10}")
                }
            case "arrayUnion", "arrayRemove":
                guard let list = argument.arrayValue else {
                    throw DocumentsError(
                        .invalidValue, "\(name) needs a JSON array, got \(argument.typeDescription)",
                        hint: "e.g. {\"\(name)\": [\"a\", \"b\"]}")
                }
                let values = try list.map { try DocumentJSON.value(from: $0) }
                return name == "arrayUnion" ? .arrayUnion(values) : .arrayRemove(values)
            default:
                break
            }
        }
        throw DocumentsError(
            .invalidValue, "unknown transform \(json.jsonString)",
            hint: "use {\"increment\": N}, {\"maximum\": N}, {\"minimum\": N}, \"serverTimestamp\", "
                + "{\"arrayUnion\": [...]}, {\"arrayRemove\": [...]} or \"delete\"")
    }

    /// Write values from `data` plus transforms at dotted field paths (nested into maps).
    static func fields(_ data: DocumentData, transforms: [String: FieldValue]) throws -> [String: FieldValue] {
        var fields = FieldValue.fields(data)
        for (dotted, transform) in transforms {
            let path = try FieldPath(dotted)
            insert(transform, at: path.segments[...], into: &fields)
        }
        return fields
    }

    private static func insert(
        _ value: FieldValue, at segments: ArraySlice<String>, into fields: inout [String: FieldValue]
    ) {
        guard let first = segments.first else { return }
        if segments.count == 1 {
            fields[first] = value
            return
        }
        var nested: [String: FieldValue]
        switch fields[first]?.kind {
        case .map(let existing)?: nested = existing
        case .value(.map(let plain))?: nested = FieldValue.fields(plain)
        default: nested = [:]
        }
        insert(value, at: segments.dropFirst(), into: &nested)
        fields[first] = .map(nested)
    }
}

extension QueryConvertible {
    /// Adds a filter written `<field> <op> <json value>`: `points >= 10`, `tags array-contains "coffee"`,
    /// `status in ["a","b"]`, \`a b\` == 1. Values are tagged JSON (``DocumentJSON``). The symbolic operators
    /// (`==`, `!=`, `<`, `<=`, `>`, `>=`) need no blanks around them: `points>=10`.
    package func whereExpression(_ expression: String) throws -> Query {
        let text = expression.trimmingCharacters(in: .whitespaces)
        var rest = Substring(text)
        // The field ends at the first blank or operator character outside backticks (`` `a b`.c ``, `` `<`.x ``).
        var quoted = false
        var escaped = false
        var fieldEnd = rest.endIndex
        for index in rest.indices {
            let c = rest[index]
            if escaped {
                escaped = false
            } else if quoted && c == "\\" {
                escaped = true
            } else if c == "`" {
                quoted.toggle()
            } else if !quoted && (c == " " || c == "\t" || Self.operatorCharacters.contains(c)) {
                fieldEnd = index
                break
            }
        }
        if quoted { throw Self.badExpression(expression, "unterminated backtick in the field") }
        guard fieldEnd != rest.endIndex, fieldEnd != rest.startIndex else {
            throw Self.badExpression(expression, "expected <field> <op> <value>")
        }
        let field = String(rest[..<fieldEnd])
        rest = rest[fieldEnd...].drop(while: { $0 == " " || $0 == "\t" })
        // A symbolic operator ends where its characters do; a word (`in`, `array-contains`) at the next blank.
        let opEnd =
            rest.first.map { Self.operatorCharacters.contains($0) } == true
            ? rest.firstIndex(where: { !Self.operatorCharacters.contains($0) }) ?? rest.endIndex
            : rest.firstIndex(where: { $0 == " " || $0 == "\t" })
        guard let opEnd, opEnd != rest.startIndex else {
            throw Self.badExpression(expression, "expected an operator and a value after '\(field)'")
        }
        let op = try FilterOperator(parsing: String(rest[..<opEnd]))
        let valueText = rest[opEnd...].trimmingCharacters(in: .whitespaces)
        guard !valueText.isEmpty else {
            throw Self.badExpression(expression, "expected a value after '\(field) \(rest[..<opEnd])'")
        }
        let value: DocumentValue
        do {
            value = try DocumentJSON.value(from: try JSONValue(parsing: valueText))
        } catch {
            throw Self.badExpression(
                expression, "the value '\(valueText)' is not JSON (strings need double quotes: \"coffee\")")
        }
        return whereField(try FieldPath(field), op, value)
    }

    /// The characters of the symbolic operators, which end a field and need no blank before a value.
    private static var operatorCharacters: Set<Character> { ["=", "!", "<", ">"] }

    private static func badExpression(_ expression: String, _ why: String) -> DocumentsError {
        DocumentsError(
            .invalidQuery, "bad filter expression '\(expression)': \(why)",
            hint: "write <field> <op> <json value>, e.g. 'points >= 10', 'tags array-contains \"coffee\"', "
                + "'status in [\"a\",\"b\"]'")
    }
}

extension DocumentStore {
    /// A batch from the command line's JSON: an array of
    /// `{"op": "set|update|delete|add", "path", "data", "merge": true | ["field", …], "transforms": {field: transform},
    /// "precondition": {"version": N} | {"exists": bool}}`. For `add`, `path` is the collection. Transforms use
    /// ``FieldValue/transform(fromJSON:)``'s format.
    package func batch(json: JSONValue) throws -> WriteBatch {
        guard let list = json.arrayValue else {
            throw DocumentsError(
                .invalidValue, "a batch file must hold a JSON array of writes, not \(json.typeDescription)",
                hint: "e.g. [{\"op\":\"set\",\"path\":\"users/u1\",\"data\":{\"points\":0}}]")
        }
        let batch = self.batch()
        for (position, item) in list.enumerated() {
            do {
                try add(item, to: batch)
            } catch let error as DocumentsError {
                throw DocumentsError(
                    error.code, "write #\(position + 1): \(error.message)", hint: error.hint, underlying: error)
            }
        }
        return batch
    }

    /// The keys each op takes; anything else (a misspelled `data`) is an error, never ignored.
    private static let batchKeys: [String: Set<String>] = [
        "set": ["op", "path", "data", "merge", "transforms", "precondition"],
        "update": ["op", "path", "data", "transforms", "precondition"],
        "delete": ["op", "path", "precondition"],
        "add": ["op", "path", "data", "transforms"],
    ]

    private func add(_ item: JSONValue, to batch: WriteBatch) throws {
        let op = try Self.checkedOp(item)
        guard let pathText = item["path"]?.stringValue else {
            throw DocumentsError(.invalidValue, "missing \"path\"")
        }
        if op == "set" || op == "add", item["data"] == nil, item["transforms"] == nil {
            throw DocumentsError(
                .invalidValue, "a \(op) needs \"data\" (the document's fields)",
                hint:
                    "e.g. {\"op\":\"\(op)\",\"path\":\"\(pathText)\",\"data\":{\"points\":0}}; {} for an empty document"
            )
        }
        let data = try item["data"].map { try DocumentJSON.data(from: $0) } ?? [:]
        let transforms = try Self.transforms(item["transforms"])
        let precondition = try Self.precondition(item["precondition"])
        switch op {
        case "set":
            let document = try self.document(pathText)
            let fields = try FieldValue.fields(data, transforms: transforms)
            try Self.addSet(fields, document, merge: item["merge"], precondition: precondition, to: batch)
        case "update":
            let fields = try Self.updateFields(data, transforms: transforms)
            batch.updateData(fields, forDocument: try document(pathText), precondition: precondition)
        case "delete":
            batch.deleteDocument(try document(pathText), precondition: precondition)
        case "add":
            let collection = try self.collection(pathText)
            let fields = try FieldValue.fields(data, transforms: transforms)
            batch.setData(fields, forDocument: try collection.document(), precondition: .exists(false))
        default:
            throw DocumentsError(
                .invalidValue, "unknown op '\(op)'", hint: "use set, update, delete or add")
        }
    }

    /// The write's `op`, once the write is an object with a known op and only the keys that op takes.
    private static func checkedOp(_ item: JSONValue) throws -> String {
        guard let object = item.objectValue else {
            throw DocumentsError(.invalidValue, "a write must be a JSON object, not \(item.typeDescription)")
        }
        guard let op = item["op"]?.stringValue else {
            throw DocumentsError(.invalidValue, "missing \"op\" (set, update, delete or add)")
        }
        guard let allowed = batchKeys[op] else {
            throw DocumentsError(
                .invalidValue, "unknown op '\(op)'",
                hint: (Suggestion.closest(to: op, among: ["set", "update", "delete", "add"]).map {
                    "did you mean '\($0)'? "
                }
                    ?? "") + "use set, update, delete or add")
        }
        for key in object.keys.sorted() where !allowed.contains(key) {
            let known = allowed.sorted()
            let suggestion = Suggestion.closest(to: key, among: known).map { "did you mean \"\($0)\"? " } ?? ""
            throw DocumentsError(
                .invalidValue, "unknown key \"\(key)\" in a \(op)",
                hint: suggestion + "a \(op) takes " + known.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return op
    }

    /// The write's `transforms` (an object of field: transform), if any.
    private static func transforms(_ json: JSONValue?) throws -> [String: FieldValue] {
        var transforms: [String: FieldValue] = [:]
        if let object = json?.objectValue {
            for (field, spec) in object { transforms[field] = try FieldValue.transform(fromJSON: spec) }
        } else if let other = json, other != .null {
            throw DocumentsError(.invalidValue, "\"transforms\" must be an object of field: transform")
        }
        return transforms
    }

    /// Adds a set of `fields`, replacing the document or merging as `merge` says (true, or a list of field paths).
    private static func addSet(
        _ fields: [String: FieldValue], _ document: DocumentReference, merge: JSONValue?,
        precondition: WritePrecondition, to batch: WriteBatch
    ) throws {
        switch merge {
        case .bool(true)?: batch.setData(fields, forDocument: document, merge: true, precondition: precondition)
        case .array(let list)?:
            let names = try list.map { entry -> String in
                guard let name = entry.stringValue else {
                    throw DocumentsError(.invalidValue, "\"merge\" lists field paths as strings")
                }
                return name
            }
            batch.setData(fields, forDocument: document, mergeFields: names, precondition: precondition)
        case nil, .bool(false)?: batch.setData(fields, forDocument: document, precondition: precondition)
        case let other?:
            throw DocumentsError(
                .invalidValue, "\"merge\" must be true, false or a list of field paths, not \(other.jsonString)")
        }
    }

    /// An update's fields: `data`'s and the transforms', each field once, checked as an update's.
    private static func updateFields(
        _ data: DocumentData, transforms: [String: FieldValue]
    ) throws -> [String: FieldValue] {
        var fields = FieldValue.fields(data)
        for (field, transform) in transforms {
            guard fields[field] == nil else {
                throw DocumentsError(
                    .invalidField, "field '\(field)' is in both \"data\" and \"transforms\"",
                    hint: "give each field once")
            }
            fields[field] = transform
        }
        _ = try PendingWrite.updateFields(fields)  // fails here, where the write's position is known
        return fields
    }

    private static func precondition(_ json: JSONValue?) throws -> WritePrecondition {
        guard let json, json != .null else { return .none }
        if json.objectValue?.count == 1, let version = json["version"]?.intValue { return .version(version) }
        if json.objectValue?.count == 1, let exists = json["exists"]?.boolValue { return .exists(exists) }
        throw DocumentsError(
            .invalidValue, "bad precondition \(json.jsonString)",
            hint: "use {\"version\": N} or {\"exists\": true|false}")
    }
}
