import StorageAccounting

/// Storage layout rules (globs with placeholders, and `regex:` rules) from the configuration, matched against file
/// paths from a scan: line 1 the rule, each further line a path.
enum StorageLayoutHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let lines = FuzzInput.lines(bytes, 6)
        guard let rule = try? LayoutRule(lines[0], service: "files") else { return }
        _ = rule.groupDepth
        _ = rule.description
        for line in lines.dropFirst() {
            _ = rule.match(StoragePath(line))
            if let escaped = StoragePath(escaped: line) { _ = rule.match(escaped) }
        }
    }
}
