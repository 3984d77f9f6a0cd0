@_spi(Engine) package import Documents
import Foundation
import SuiteCore

/// Parsing and rendering behind `suite docs` that belongs to the command line: transform flags, cursors, tables.
/// (Where-expressions, batch files and result JSON live in Documents' `StoreJSON.swift`, the JSON edge of the store.)
package enum DocumentsCommandSupport {
    // MARK: - Values

    /// Parses JSON text into document data (a JSON object, tagged values allowed).
    package static func data(fromJSON text: String, what: String) throws -> DocumentData {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch let error as SuiteError {
            // The parser's own hint is about quoting in general unless it names the problem (a number's range).
            let specific = error.hint.flatMap { $0.hasPrefix("check quoting") ? nil : $0 }
            throw SuiteError(
                .invalidArgument, "\(what) is not valid JSON: \(error.message)",
                hint: specific ?? "quote it for the shell: '{\"name\":\"Ana\",\"points\":10}'")
        }
        guard json.objectValue != nil else {
            throw SuiteError(
                .invalidArgument, "\(what) must be a JSON object, not \(json.typeDescription)",
                hint: "e.g. '{\"points\":10}'")
        }
        return try DocumentJSON.data(from: json)
    }

    /// Parses a JSON value; a bare word that is not JSON (`active`) is taken as a string.
    package static func value(fromJSON text: String, what: String) throws -> DocumentValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parsed: JSONValue?
        do {
            parsed = try JSONValue(parsing: trimmed)
        } catch let error as SuiteError where Self.isIntegerLiteral(trimmed) {
            throw SuiteError(.invalidArgument, "\(what): \(error.message)", hint: error.hint)  // never a string
        } catch {
            parsed = nil
        }
        if let parsed { return try DocumentJSON.value(from: parsed) }
        let isBareWord = !trimmed.isEmpty && trimmed.allSatisfy { $0.isLetter || $0.isNumber || "_-.@:".contains($0) }
        if isBareWord { return .string(trimmed) }
        throw SuiteError(
            .invalidArgument, "\(what): '\(text)' is not a JSON value",
            hint: "strings need double quotes inside single quotes, e.g. '\"coffee\"'; lists: '[\"a\",\"b\"]'")
    }

    /// `-?[0-9]+`: text that is a number, so a parse failure (out of range) is an error, not a bare word.
    static func isIntegerLiteral(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    // MARK: - Ordering

    /// Parses `FIELD`, `FIELD:asc` or `FIELD:desc` (any case); any other suffix is an error, so a misspelled direction
    /// never becomes part of the field name. A name containing `:` is quoted: `` `a:b`:desc ``.
    package static func order(parsing text: String) throws -> (FieldPath, descending: Bool) {
        var name = text
        var descending = false
        if !text.hasSuffix("`"), let colon = text.lastIndex(of: ":") {
            let suffix = text[text.index(after: colon)...]
            switch suffix.lowercased() {
            case "asc": break
            case "desc": descending = true
            default:
                throw SuiteError(
                    .invalidArgument, "--order-by \(text): unknown direction '\(suffix)'",
                    hint: "use FIELD, FIELD:asc or FIELD:desc; quote a name containing ':' with backticks")
            }
            name = String(text[..<colon])
        }
        return (try FieldPath(name), descending)
    }

    // MARK: - Transforms

    /// Parses `field=<json>` (for `--increment`, `--array-union`, `--array-remove`).
    package static func assignment(_ text: String, flag: String) throws -> (String, DocumentValue) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw SuiteError(
                .invalidArgument, "\(flag) expects FIELD=VALUE, got '\(text)'", hint: "e.g. \(flag) points=10")
        }
        let field = String(text[..<equals])
        let value = try self.value(fromJSON: String(text[text.index(after: equals)...]), what: "\(flag) \(field)")
        return (field, value)
    }

    /// Builds an increment transform; the amount must be a number.
    package static func increment(_ text: String) throws -> (String, FieldValue) {
        let (field, value) = try assignment(text, flag: "--increment")
        switch value {
        case .int(let i): return (field, .increment(i))
        case .double(let d): return (field, .increment(d))
        default:
            throw SuiteError(
                .invalidArgument, "--increment \(field) needs a number, not \(text)",
                hint: "e.g. --increment points=-10")
        }
    }

    /// Builds an array-union or array-remove transform; the value must be a JSON array.
    package static func arrayTransform(_ text: String, union: Bool) throws -> (String, FieldValue) {
        let flag = union ? "--array-union" : "--array-remove"
        let (field, value) = try assignment(text, flag: flag)
        guard case .array(let elements) = value else {
            throw SuiteError(
                .invalidArgument, "\(flag) \(field) needs a JSON array", hint: "e.g. \(flag) tags='[\"coffee\"]'")
        }
        return (field, union ? .arrayUnion(elements) : .arrayRemove(elements))
    }

    // MARK: - Rendering

    /// A document for people: path, version, update time, then its data as indented JSON.
    package static func render(_ snapshot: DocumentSnapshot) -> String {
        guard let data = snapshot.data else { return "\(snapshot.path) does not exist" }
        var lines = [
            "path     \(snapshot.path)",
            "version  \(snapshot.version)",
        ]
        if let updated = snapshot.updateTime { lines.append("updated  \(ObservedEvent.formatTime(updated.date))") }
        lines.append(DocumentJSON.json(from: data).prettyJSONString)
        return lines.joined(separator: "\n")
    }

    /// Documents as a table: one row each, one column per top-level field (the first eight, by frequency).
    /// The first column is the id, or with `showingPaths` (a collection-group query, whose rows come from several
    /// parents) the full path.
    package static func table(_ snapshots: [DocumentSnapshot], showingPaths: Bool = false) -> String {
        var frequency: [String: Int] = [:]
        for snapshot in snapshots {
            for key in snapshot.data?.keys ?? [:].keys { frequency[key, default: 0] += 1 }
        }
        let columns = frequency.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(8).map(\.key)
        var table = TextTable([showingPaths ? "PATH" : "ID"] + columns.map { $0.uppercased() })
        for snapshot in snapshots {
            let cells = columns.map { column -> String in
                guard let value = snapshot.data?[column] else { return "" }
                let text: String
                if case .string(let s) = value { text = s } else { text = DocumentJSON.json(from: value).jsonString }
                return text.count > 32 ? String(text.prefix(31)) + "…" : text
            }
            table.append([showingPaths ? snapshot.path.string : snapshot.documentID] + cells)
        }
        return table.render() + "\n(\(snapshots.count) document\(snapshots.count == 1 ? "" : "s"))"
    }

    /// A query plan for people.
    package static func render(_ plan: QueryPlan) -> String {
        var lines = [
            "target      \(plan.target)\(plan.collectionGroup ? " (collection group)" : "")",
            "strategy    \(plan.strategy)",
            "indexes     \(plan.indexes.isEmpty ? "none" : plan.indexes.joined(separator: ", "))",
            "full scan   \(plan.usesCollectionScan ? "yes" : "no")",
            "scanned     \(plan.indexEntriesScanned) index entries",
            "read        \(plan.documentsRead) documents",
            "results     \(plan.results)",
        ]
        if !plan.steps.isEmpty {
            var table = TextTable(["STEP", "ACCESS", "INDEXES", "DETAIL"])
            for (i, step) in plan.steps.enumerated() {
                table.append(["\(i + 1)", step.access, step.indexes.joined(separator: ", "), step.detail])
            }
            lines.append("")
            lines.append(table.render())
        }
        return lines.joined(separator: "\n")
    }

    /// The cost report for people: totals, per collection with a bar chart of reads, per kind.
    package static func render(_ report: CostReport) -> String {
        if report.isEmpty { return "no billed operations yet" }
        var lines = [
            "total    \(report.total.reads) reads, \(report.total.writes) writes, \(report.total.deletes) deletes", "",
        ]
        let maximum = max(1, report.byCollection.values.map(\.reads).max() ?? 1)
        var table = TextTable(
            ["COLLECTION", "READS", "WRITES", "DELETES", ""], alignments: [.left, .right, .right, .right])
        for (collection, counts) in report.byCollection.sorted(by: {
            $0.value.reads > $1.value.reads || ($0.value.reads == $1.value.reads && $0.key < $1.key)
        }) {
            let width = Int((Double(counts.reads) / Double(maximum) * 30).rounded())
            table.append([
                collection, "\(counts.reads)", "\(counts.writes)", "\(counts.deletes)",
                String(repeating: "█", count: width),
            ])
        }
        lines.append(table.render())
        if !report.byKind.isEmpty {
            var kinds = TextTable(
                ["OPERATION", "READS", "WRITES", "DELETES"], alignments: [.left, .right, .right, .right])
            for (kind, counts) in report.byKind.sorted(by: { $0.key < $1.key }) {
                kinds.append([kind, "\(counts.reads)", "\(counts.writes)", "\(counts.deletes)"])
            }
            lines.append("")
            lines.append(kinds.render())
        }
        if !report.queries.isZero {
            lines.append("")
            lines.append(render(report.queries))
        }
        return lines.joined(separator: "\n")
    }

    /// The query-control line of `suite docs stats`: what coalescing saved and what the rate limit delayed or refused.
    package static func render(_ queries: QueryThrottleCounts) -> String {
        let waited = Double(queries.throttledWaitMicroseconds) / 1_000_000
        return "queries  \(queries.coalesced) coalesced (\(queries.readsSaved) reads saved), "
            + "\(queries.throttled) throttled (waited \(String(format: "%.3f", waited)) s in all), "
            + "\(queries.rejected) refused by the rate limit"
    }

    /// The change-log lines of `suite docs stats`: its records, and the horizon before which changes were pruned.
    package static func render(_ status: ChangeLogStatus) -> String {
        "change log: \(status.records) records up to sequence \(status.lastSequence), horizon \(status.horizon)"
            + (status.horizon > 0 ? " (changes up to it pruned)" : " (nothing pruned)")
    }

    /// The index lines of `suite docs stats`: `pending index operations: N`, then the runs.
    package static func render(_ status: IndexMaintenanceStatus) -> String {
        var lines = [
            "pending index operations: \(status.pendingOperations)",
            "index runs: \(status.runs) (\(status.runEntries) entries)",
        ]
        if let error = status.lastMaintenanceError { lines.append("last index maintenance error: \(error)") }
        return lines.joined(separator: "\n")
    }
}
