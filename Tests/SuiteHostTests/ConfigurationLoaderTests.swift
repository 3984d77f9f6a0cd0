import Foundation
import SuiteCore
import SuiteHost
import SuiteTestSupport
import Testing

@Suite("Configuration")
struct ConfigurationLoaderTests {
    func loader(_ directory: URL, _ environment: [String: String] = [:]) -> ConfigurationLoader {
        var env = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("xdg").path]
        env.merge(environment) { _, new in new }
        return ConfigurationLoader(modules: Self.modules, environment: env, currentDirectory: directory.path)
    }

    static let modules: [any SuiteModule] = [DocumentsModule(), ObserversModule(), GreetingModule()]

    func documentsEngine(_ configuration: SuiteConfiguration) throws -> String {
        try DocumentsModule().settings(configuration.section("documents"), in: configuration).engine.name
    }

    func observers(_ configuration: SuiteConfiguration) throws -> [EngineSelection] {
        try ObserversModule().settings(configuration.section("observers"), in: configuration)
    }

    @Test("with nothing configured, data lives in $XDG_DATA_HOME/suite and every source is the default")
    func defaults() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let configuration = try loader(directory, ["XDG_DATA_HOME": "/x/data"]).load()
        #expect(configuration.dataDirectory == "/x/data/suite")
        #expect(configuration.file == nil)
        #expect(try documentsEngine(configuration) == "sqlite")
        #expect(configuration.pluginTimeout == 30)
        #expect(configuration.sources["data-dir"] == .defaultValue)
        let home = try loader(directory).load()
        #expect(home.dataDirectory == directory.path + "/.local/share/suite")
    }

    @Test("./suite.yaml is read: lists, observers with options, every relative path resolved against the file")
    func yamlFile() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        try """
        data-dir: data
        plugin-path: [plugins, /abs]
        plugins: [EventLog, ./libX.so]
        observers:
          - engine: eventlog
            options: {path: events.jsonl, n: 3, on: true, ratio: 0.5, quoted: "12"}
        documents: {engine: memory}
        log-level: debug
        """.write(to: directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
        let configuration = try loader(directory).load()
        #expect(configuration.file == directory.appendingPathComponent("suite.yaml").path)
        #expect(configuration.dataDirectory == directory.path + "/data")
        #expect(configuration.pluginPath == [directory.path + "/plugins", "/abs"])
        #expect(configuration.plugins == ["EventLog", directory.path + "/libX.so"])
        #expect(
            try observers(configuration) == [
                EngineSelection(
                    engine: "eventlog",
                    options: [
                        "path": .string(directory.path + "/events.jsonl"), "n": 3, "on": true, "ratio": 0.5,
                        "quoted": "12",
                    ])
            ])
        #expect(try documentsEngine(configuration) == "memory")
        #expect(configuration.logLevel == "debug")
        #expect(configuration.sources["plugins"] == .file(configuration.file!))
    }

    @Test("a .json file is accepted too, and $XDG_CONFIG_HOME/suite/suite.yaml is found when ./suite.yaml is absent")
    func jsonAndXDG() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let json = directory.appendingPathComponent("c.json")
        try #"{"plugins": ["A"], "data-dir": "/d"}"#.write(to: json, atomically: true, encoding: .utf8)
        let fromJSON = try loader(directory).load(.init(configFile: json.path))
        #expect(fromJSON.plugins == ["A"])
        #expect(fromJSON.dataDirectory == "/d")

        let xdg = directory.appendingPathComponent("xdg/suite")
        try FileManager.default.createDirectory(at: xdg, withIntermediateDirectories: true)
        try "plugins: [FromXDG]\n".write(
            to: xdg.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
        #expect(try loader(directory).load().plugins == ["FromXDG"])
    }

    @Test("environment overrides the file, flags override both, and each value records its source")
    func precedence() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        try "data-dir: /from-file\nlog-level: info\nplugins: [A]\n".write(
            to: directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
        let env = ["SUITE_DATA_DIR": "/from-env", "SUITE_LOG_LEVEL": "error", "SUITE_PLUGINS": "B, C"]
        let fromEnv = try loader(directory, env).load()
        #expect(fromEnv.dataDirectory == "/from-env")
        #expect(fromEnv.logLevel == "error")
        #expect(fromEnv.plugins == ["B", "C"])
        #expect(fromEnv.sources["data-dir"] == .environment("SUITE_DATA_DIR"))

        let fromFlags = try loader(directory, env).load(.init(dataDirectory: "/from-flag", logLevel: "trace"))
        #expect(fromFlags.dataDirectory == "/from-flag")
        #expect(fromFlags.logLevel == "trace")
        #expect(fromFlags.sources["data-dir"] == .flag("--data-dir"))
        #expect(fromFlags.sources["plugins"] == .environment("SUITE_PLUGINS"))
    }

    @Test(
        "unknown keys and wrong types are errors naming the key and the file",
        arguments: [
            ("plugin_path: [a]\n", "unknown key 'plugin_path'"),
            ("documets: {engine: memory}\n", "unknown key 'documets'"),
            ("plugins: EventLog\n", "key 'plugins'"),
            ("data-dir: [1]\n", "key 'data-dir'"),
            ("observers: [{engine: x, option: {}}]\n", "unknown key 'observers[0].option'"),
            ("observers: [{options: {}}]\n", "observers[0].engine"),
            ("observers: [{engine: x, options: [1]}]\n", "observers[0].options"),
            ("documents: sqlite\n", "key 'documents'"),
            ("documents: {engine: sqlite, indexes: users}\n", "documents.indexes"),
            ("documents: {indexes: [{collection: users}]}\n", "documents.indexes[0]"),
            ("documents: {indexes: [{collection: u, fields: [a], order: x}]}\n", "documents.indexes[0].order"),
            ("documents: {engine: sqlite, options: {durability: fast}}\n", "documents.options.durability"),
            ("documents: {engine: sqlite, options: {pth: x.sqlite}}\n", "unknown key 'documents.options.pth'"),
            ("documents: {engine: sqlite, options: {change-log-days: -1}}\n", "documents.options.change-log-days"),
            ("documents: {engine: sqlite, options: {change-log-days: soon}}\n", "documents.options.change-log-days"),
            ("documents: {engine: sqlite, options: {change-log-minimum: 0}}\n", "documents.options.change-log-minimum"),
            (
                "documents: {engine: sqlite, options: {change-log-minimum: 2.5}}\n",
                "documents.options.change-log-minimum"
            ),
            ("documents: {engine: memory, options: {max-document-size: -1}}\n", "max-document-size"),
            ("greeting: {words: 3}\n", "unknown key 'greeting.words'"),
            ("plugin-timeout: -2\n", "plugin-timeout"),
            ("plugin-timeout: soon\n", "key 'plugin-timeout'"),
            ("log-level: loud\n", "unknown log level 'loud'"),
            ("plugins: [a\n", "not valid YAML"),
            ("- just\n- a list\n", "must hold a map"),
        ])
    func invalidFiles(_ text: String, _ expected: String) throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("suite.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        #expect {
            try loader(directory).load()
        } throws: { error in
            guard let error = error as? SuiteError else { return false }
            return error.code == .invalidConfiguration && error.message.contains(expected)
                && error.message.contains(file.path)
        }
    }

    @Test("a --config file that does not exist is an error, not a silent fallback to defaults")
    func missingExplicitFile() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        #expect(throws: SuiteError.self) { try loader(directory).load(.init(configFile: "nope.yaml")) }
    }

    @Test("an error names the nested key's own line and suggests the closest known key")
    func lineAndSuggestion() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("suite.yaml")
        try "log-level: info\ndocuments:\n  engine: sqlite\n  options:\n    duribility: full\n".write(
            to: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: SuiteError.self) { try loader(directory).load() }
        #expect(error.message.contains("'documents.options.duribility'"))
        #expect(error.message.contains("(line 5)"))
        #expect(error.hint?.contains("did you mean 'durability'?") == true)

        try "documnets: {engine: memory}\n".write(to: file, atomically: true, encoding: .utf8)
        let top = try #require(throws: SuiteError.self) { try loader(directory).load() }
        #expect(top.hint?.contains("did you mean 'documents'?") == true)
    }

    @Test("one path rule: every path option of every module and observer resolves against the file's folder")
    func pathRule() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let folder = directory.appendingPathComponent("conf")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        data-dir: ./data
        documents: {engine: sqlite, options: {path: db/docs.sqlite}}
        observers: [{engine: eventlog, options: {path: events.jsonl, name: keep, nested: {log-file: x.log}}}]
        greeting: {text: hi, output-file: out/greeting.txt}
        """.write(to: folder.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
        let configuration = try loader(directory).load(.init(configFile: "conf/suite.yaml"))
        let base = folder.path
        #expect(configuration.dataDirectory == base + "/data")
        let documents = try DocumentsModule().settings(configuration.section("documents"), in: configuration)
        #expect(documents.engine.options["path"] == .string(base + "/db/docs.sqlite"))
        let observer = try #require(try observers(configuration).first)
        #expect(observer.options["path"] == .string(base + "/events.jsonl"))
        #expect(observer.options["name"] == "keep")
        #expect(observer.options["nested"]?["log-file"] == .string(base + "/x.log"))
        // A module's section outside `options` keeps its values: only engine options are path-resolved.
        #expect(configuration.section("greeting").value["output-file"] == "out/greeting.txt")
    }

    @Test("SUITE_<MODULE>_ENGINE picks any module's engine; SUITE_PLUGIN_TIMEOUT sets the plugin deadline")
    func environmentEngines() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let configuration = try loader(
            directory, ["SUITE_DOCUMENTS_ENGINE": "memory", "SUITE_PLUGIN_TIMEOUT": "2.5"]
        ).load()
        #expect(try documentsEngine(configuration) == "memory")
        #expect(configuration.sources["documents"] == .environment("SUITE_DOCUMENTS_ENGINE"))
        #expect(configuration.pluginTimeout == 2.5)
        #expect(throws: SuiteError.self) { try loader(directory, ["SUITE_PLUGIN_TIMEOUT": "never"]).load() }
    }
}

/// A seventh module as a reader would add one: a description with a section, checked by the loader, shown by status.
struct GreetingModule: SuiteModule {
    var name: String { "Greeting" }
    var configurationKey: String { "greeting" }

    func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> String {
        let object = try section.object()
        try section.checkKeys(object, known: ["text", "output-file"])
        if let text = object["text"], text.stringValue == nil {
            throw section.error("greeting.text", "must be a string")
        }
        return object["text"]?.stringValue ?? "hello"
    }

    func status(_ text: String, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(location: text)
    }
}
