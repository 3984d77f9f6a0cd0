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
        return ConfigurationLoader(environment: env, currentDirectory: directory.path)
    }

    @Test("with nothing configured, data lives in $XDG_DATA_HOME/suite and every source is the default")
    func defaults() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let configuration = try loader(directory, ["XDG_DATA_HOME": "/x/data"]).load()
        #expect(configuration.dataDirectory == "/x/data/suite")
        #expect(configuration.file == nil)
        #expect(configuration.documents.engine == "sqlite")
        #expect(configuration.sources["data-dir"] == .defaultValue)
        let home = try loader(directory).load()
        #expect(home.dataDirectory == directory.path + "/.local/share/suite")
    }

    @Test("./suite.yaml is read: lists, observers with options, relative paths resolved against the file")
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
            configuration.observers == [
                EngineSelection(
                    engine: "eventlog",
                    options: ["path": "events.jsonl", "n": 3, "on": true, "ratio": 0.5, "quoted": "12"])
            ])
        #expect(configuration.documents.engine == "memory")
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
            ("plugins: EventLog\n", "key 'plugins'"),
            ("data-dir: [1]\n", "key 'data-dir'"),
            ("observers: [{engine: x, option: {}}]\n", "unknown key 'observers[0].option'"),
            ("observers: [{options: {}}]\n", "observers[0].engine"),
            ("observers: [{engine: x, options: [1]}]\n", "observers[0].options"),
            ("documents: sqlite\n", "key 'documents'"),
            ("documents: {engine: sqlite, indexes: users}\n", "documents.indexes"),
            ("documents: {indexes: [{collection: users}]}\n", "documents.indexes[0]"),
            ("documents: {indexes: [{collection: u, fields: [a], order: x}]}\n", "documents.indexes[0].order"),
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
}
