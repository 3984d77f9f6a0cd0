/// A plain-text table for people: a header row, aligned columns, two spaces between them.
///
/// ```swift
/// var table = TextTable(["NAME", "SIZE"])
/// table.append(["a.txt", "12 KB"])
/// print(table.render())
/// ```
package struct TextTable: Sendable {
    /// Column alignment.
    package enum Alignment: Sendable { case left, right }

    /// The header cells.
    package var header: [String]
    /// The body rows.
    package var rows: [[String]] = []
    /// Per-column alignment; missing entries are left-aligned.
    package var alignments: [Alignment]

    /// A table with `header` cells.
    package init(_ header: [String], alignments: [Alignment] = []) {
        self.header = header
        self.alignments = alignments
    }

    /// Adds a row.
    package mutating func append(_ row: [String]) { rows.append(row) }

    /// The table as text, one line per row, without a trailing newline.
    package func render() -> String {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        return all.map { row in
            var line = ""
            for i in 0..<columns {
                let cell = i < row.count ? row[i] : ""
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                let alignment = i < alignments.count ? alignments[i] : .left
                if i > 0 { line += "  " }
                line += alignment == .right ? pad + cell : (i == columns - 1 ? cell : cell + pad)
            }
            return line
        }.joined(separator: "\n")
    }
}
