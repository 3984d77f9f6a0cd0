@_spi(Engine) public import Documents
public import Logging
public import SuiteCore
public import SuitePluginKit

/// A plugin's `documents` engine, seen by the host as an ordinary `DocumentEngine`: each requirement is one call
/// through the C ABI with a `DocumentEngineWire` payload.
///
/// ```swift
/// let plugin = try PluginLoader.load(path: "/opt/suite/plugins/libMemoryDocuments.so")
/// let engine = try PluginDocumentEngine(plugin: plugin, name: "plugin-memory")
/// let result = try await engine.commit(mutations, commitTime: now)
/// ```
///
/// Errors: a `DocumentsError` thrown inside the plugin comes back with the same code, message and hint (its
/// `underlying` error stays behind). A failure of the call itself (unsupported operation, malformed request, a
/// plugin that does not answer in the wire format, a timeout) becomes a `.storage` or `.corrupted` `DocumentsError`
/// whose `underlying`, when there is one, is the `PluginError` (code `timedOut` for a timeout). Calls may run
/// concurrently.
public struct PluginDocumentEngine: DocumentEngine {
    private let engine: PluginEngine<DocumentsEngineKind>
    /// Whether the plugin prepares commits (`prepareCommit`), until it answers that it does not.
    let prepares = PreparingSupport()

    /// The plugin engine behind this adapter.
    public var handle: PluginEngineHandle { engine.handle }

    /// Wraps a plugin engine of kind `EngineKind/documents`.
    public init(handle: PluginEngineHandle) {
        self.engine = PluginEngine(handle: handle)
    }

    /// Creates the `documents` engine `name` of `plugin` with `options`; see
    /// `LoadedPlugin.makeEngine(kind:name:options:services:callTimeout:logger:)` for the other parameters.
    /// - Throws: `PluginError` when the plugin has no such engine or refuses the options.
    public init(
        plugin: LoadedPlugin, name: String, options: JSONValue = .object([:]),
        services: PluginHostServices = .discarding, callTimeout: Duration = PluginEngineHandle.defaultCallTimeout,
        logger: Logger = Logger(label: "suite.plugins", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        self.engine = try PluginEngine(
            plugin: plugin, name: name, options: options, services: services, callTimeout: callTimeout,
            logger: logger)
    }

    /// Sends `request` and returns the successful response, throwing a failure as its `DocumentsError`.
    func send(_ request: DocumentEngineRequest) async throws -> DocumentEngineResponse {
        try await engine.send(request)
    }

    func mismatch(_ operation: DocumentEngineOperation) -> DocumentsError {
        DocumentsError(.corrupted, "documents engine plugin answered '\(operation.rawValue)' with another response")
    }

    @_spi(Engine) public func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult {
        guard case .commit(let result) = try await send(.commit(mutations, commitTime: commitTime)) else {
            throw mismatch(.commit)
        }
        return result
    }

    @_spi(Engine) public func documents(at paths: [String]) async throws -> [StoredDocument?] {
        guard case .documents(let documents) = try await send(.get(paths)) else { throw mismatch(.get) }
        return documents
    }

    @_spi(Engine) public func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        guard case .hits(let hits) = try await send(.scan(scan)) else { throw mismatch(.scan) }
        return hits
    }

    @_spi(Engine) public func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]
    {
        guard
            case .listed(let documents) = try await send(
                .list(collection: collectionPath, after: afterPath, limit: limit))
        else { throw mismatch(.list) }
        return documents
    }

    @_spi(Engine) public func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]
    {
        guard
            case .listed(let documents) = try await send(
                .listGroup(collectionID: collectionID, after: afterPath, limit: limit))
        else { throw mismatch(.listGroup) }
        return documents
    }

    @_spi(Engine) public func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord] {
        guard case .changes(let changes) = try await send(.changes(after: sequence, limit: limit)) else {
            throw mismatch(.changes)
        }
        return changes
    }

    @_spi(Engine) public func lastSequence() async throws -> Int64 {
        guard case .sequence(let sequence) = try await send(.lastSequence) else { throw mismatch(.lastSequence) }
        return sequence
    }

    @_spi(Engine) public func addIndexEntries(_ additions: [IndexAddition]) async throws {
        _ = try await send(.addIndexEntries(additions))
    }

    @_spi(Engine) public func removeIndex(_ index: String) async throws {
        _ = try await send(.removeIndex(index))
    }

    @_spi(Engine) public func metadata(forKey key: String) async throws -> [UInt8]? {
        guard case .metadata(let value) = try await send(.metadata(key: key)) else { throw mismatch(.metadata) }
        return value
    }

    @_spi(Engine) public func setMetadata(_ value: [UInt8]?, forKey key: String) async throws {
        _ = try await send(.setMetadata(value, key: key))
    }

    /// Read, transform, then compare-and-set in the plugin, again until no other writer came between: atomic across
    /// processes when the plugin's engine is. A plugin without `compareAndSetMetadata` gets a read, then a write.
    @_spi(Engine) public func updateMetadata(
        forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?
    ) async throws {
        while true {
            let current = try await metadata(forKey: key)
            let new = try transform(current)
            let response: DocumentEngineResponse
            do {
                response = try await send(.compareAndSetMetadata(key: key, expected: current, new: new))
            } catch let error as DocumentsError where error.underlying is PluginError {
                try await setMetadata(new, forKey: key)  // an older plugin: not atomic across processes
                return
            }
            guard case .flag(let replaced) = response else { throw mismatch(.compareAndSetMetadata) }
            if replaced { return }
        }
    }

    /// Waits in the plugin (a PostgreSQL engine wakes on NOTIFY); sleeps `timeout` when the plugin cannot.
    @_spi(Engine) public func waitForChanges(after sequence: Int64, timeout: Duration) async {
        let micros = timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000
        if (try? await send(.waitForChanges(after: sequence, timeoutMicroseconds: micros))) == nil {
            try? await Task.sleep(for: timeout)
        }
    }

    /// The hits and their documents in one call (the plugin reads them itself when its engine cannot); `nil` from a
    /// plugin built before the operation existed.
    @_spi(Engine) public func scanReadingDocuments(_ scan: IndexScan) async throws -> ScannedDocuments? {
        let response: DocumentEngineResponse
        do {
            response = try await send(.scanDocuments(scan))
        } catch let error as DocumentsError where error.underlying is PluginError {
            return nil
        }
        guard case .scanned(let scanned) = response else { throw mismatch(.scanDocuments) }
        return scanned
    }

    /// The plugin engine's collection ids; `nil` from a plugin built before the operation or whose engine cannot list
    /// them.
    @_spi(Engine) public func collectionIDs(under parentPath: String?) async throws -> [String]? {
        let response: DocumentEngineResponse
        do {
            response = try await send(.collectionIDs(parent: parentPath))
        } catch let error as DocumentsError where error.underlying is PluginError || error.code == .unsupported {
            return nil
        }
        guard case .names(let names) = response else { throw mismatch(.collectionIDs) }
        return names
    }

    /// The plugin engine's change log; `nil` from a plugin built before the operation or whose engine does not
    /// report it.
    @_spi(Engine) public func changeLogStatus() async throws -> ChangeLogStatus? {
        let response: DocumentEngineResponse
        do {
            response = try await send(.changeLogStatus)
        } catch let error as DocumentsError where error.underlying is PluginError || error.code == .unsupported {
            return nil
        }
        guard case .changeLog(let status) = response else { throw mismatch(.changeLogStatus) }
        return status
    }

    /// Verifies in one call (progress is reported once, at the end). A selection other than `IndexSelection/all`
    /// or `IndexSelection/named(_:)` is applied here to the plugin's index names, which costs one more call.
    /// - Throws: `DocumentsError/Code-swift.struct/unsupported` when the plugin or its engine cannot verify.
    @_spi(Engine) public func verifyIndexes(
        _ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?
    ) async throws -> IndexVerification {
        let request = DocumentEngineRequest.verifyIndexes(
            names: try await names(selection, "verify"), maximumReported: max(0, maximumReported))
        guard case .verification(let report) = try await sendIndexRequest(request, "verify") else {
            throw mismatch(.verifyIndexes)
        }
        progress?(report.entries, report.entries)
        return report
    }

    /// Rebuilds in one call (progress is reported once, at the end); the selection as for
    /// ``verifyIndexes(_:maximumReported:progress:)``.
    /// - Throws: `DocumentsError/Code-swift.struct/unsupported` when the plugin or its engine cannot rebuild.
    @_spi(Engine) public func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws
        -> IndexRebuild
    {
        let request = DocumentEngineRequest.rebuildIndexes(names: try await names(selection, "rebuild"))
        guard case .rebuild(let report) = try await sendIndexRequest(request, "rebuild") else {
            throw mismatch(.rebuildIndexes)
        }
        progress?(report.entries, report.entries)
        return report
    }

    /// The index names a selection stands for on the wire: `nil` for every index.
    private func names(_ selection: IndexSelection, _ verb: String) async throws -> [String]? {
        if selection.isAll { return nil }
        if let names = selection.names { return names.sorted() }
        guard case .names(let names) = try await sendIndexRequest(.indexNames, verb) else {
            throw mismatch(.indexNames)
        }
        return names.filter(selection.contains)
    }

    /// Sends an index check; a plugin built before the operation existed answers as an engine that cannot.
    private func sendIndexRequest(_ request: DocumentEngineRequest, _ verb: String) async throws
        -> DocumentEngineResponse
    {
        do {
            return try await send(request)
        } catch let error as DocumentsError where (error.underlying as? PluginError)?.code == .callFailed {
            throw DocumentsError(
                .unsupported, "this documents engine plugin cannot \(verb) its indexes (it predates the operation)",
                hint: "rebuild the plugin from this Suite version", underlying: error)
        }
    }

    /// Ends the plugin's engine gracefully (its connections close).
    public func shutdown() async {
        _ = try? await send(.shutdown)
    }
}
