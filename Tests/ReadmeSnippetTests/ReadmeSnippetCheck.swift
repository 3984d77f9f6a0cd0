import Foundation
import Testing

/// Every ```swift block of every README.md in the repository, and of every DocC article, appears, line by line and in
/// order, in the Swift file of this target named after the README's folder (`Modules/Cache/README.md` and
/// `Modules/Cache/Cache.docc/GettingStarted.md` → `CacheReadme.swift`, the root README → `RootReadme.swift`), which
/// this target compiles. A README edit without its compiled copy fails here, and so does a new README with Swift
/// blocks and no file.
@Test("every README and DocC Swift snippet is compiled by ReadmeSnippetTests", arguments: ReadmeFiles.all())
func readmeSnippetsAreCompiled(_ readme: String) throws {
    let blocks = ReadmeFiles.swiftBlocks(try ReadmeFiles.source(ReadmeFiles.root + readme))
    guard !blocks.isEmpty else { return }
    let compiledIn = "Tests/ReadmeSnippetTests/\(ReadmeFiles.snippetFileName(for: readme))"
    let compiledSource = try #require(
        try? ReadmeFiles.source(ReadmeFiles.root + compiledIn),
        "\(readme) has Swift snippets: copy them into \(compiledIn) so they are compiled")
    let compiled = ReadmeFiles.lines(compiledSource)
    let imports = Set(compiled.compactMap(ReadmeFiles.importedModule))
    for block in blocks {
        let lines = ReadmeFiles.lines(block)
        for module in lines.compactMap(ReadmeFiles.importedModule) {
            #expect(imports.contains(module), "\(readme): \(compiledIn) does not import \(module)")
        }
        let code = lines.filter { ReadmeFiles.importedModule($0) == nil }
        #expect(ReadmeFiles.contains(compiled, code), "\(readme): this snippet is not in \(compiledIn):\n\(block)")
    }
}

@Test("the README finder sees the root README and the modules' READMEs")
func readmeFinderSeesTheReadmes() {
    let all = ReadmeFiles.all()
    #expect(all.contains("README.md"))
    #expect(all.contains("Modules/Documents/README.md"))
    #expect(all.contains("Plugins/PostgresDocuments/README.md"))
    #expect(all.contains("Modules/Cache/Cache.docc/GettingStarted.md"))
    #expect(ReadmeFiles.snippetFileName(for: "Modules/Cache/README.md") == "CacheReadme.swift")
    #expect(ReadmeFiles.snippetFileName(for: "Modules/Cache/Cache.docc/GettingStarted.md") == "CacheReadme.swift")
    #expect(ReadmeFiles.snippetFileName(for: "README.md") == "RootReadme.swift")
}

/// Finding READMEs and comparing their Swift blocks with compiled sources.
enum ReadmeFiles {
    /// The package's root directory (this file is in `Tests/ReadmeSnippetTests/`).
    static let root =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/"

    /// Every README.md of the repository and every article of a DocC catalog, relative to the root, outside hidden
    /// folders (`.build`, `.git`).
    static func all() -> [String] {
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return found }
        while let path = walker.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
            } else if name == "README.md" || (name.hasSuffix(".md") && path.contains(".docc/")) {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// `Modules/Cache/README.md` and `Modules/Cache/Cache.docc/*.md` → `CacheReadme.swift`; `README.md` →
    /// `RootReadme.swift`.
    static func snippetFileName(for readme: String) -> String {
        var folder = (readme as NSString).deletingLastPathComponent
        if folder.hasSuffix(".docc") { folder = (folder as NSString).deletingLastPathComponent }
        return (folder.isEmpty ? "Root" : (folder as NSString).lastPathComponent) + "Readme.swift"
    }

    static func source(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The contents of the ```swift blocks of a Markdown text.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if let lines = current, trimmed == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Non-empty lines without their indentation (a snippet sits indented inside a function).
    static func lines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The module an `import` line imports (`public import X`, `@testable import X` too), or nil.
    static func importedModule(_ line: String) -> String? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
            words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) })
        else { return nil }
        return String(words[index + 1])
    }

    /// Whether `needle` appears in `haystack` as consecutive lines.
    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
