@_spi(Engine) package import Documents
import Foundation
import SuitePluginKit
import Synchronization

/// Whether a plugin prepares commits; shared by the copies of one ``PluginDocumentEngine``.
final class PreparingSupport: Sendable {
    let supported = Atomic<Bool>(true)
    /// Tells the prepared commits of this engine from those of others.
    let identity = UUID()
}

/// A commit the plugin prepared: its handle there.
struct PluginPreparedCommit: Sendable {
    var handle: Int64
}

/// The store's bulk importer prepares its next chunk while the previous one writes. Through a plugin, preparing is
/// one call (`prepareCommit`: the plugin decodes the mutations and does its engine's preparation, for PostgreSQL the
/// commit's plan and encoded parameters) and committing another (`commitPrepared`), so that the decoding and the
/// preparation happen while the database writes the chunk before.
extension PluginDocumentEngine: CommitPreparing {
    package func prepareCommit(_ mutations: [DocumentMutation]) async throws -> PreparedCommit {
        guard prepares.supported.load(ordering: .relaxed), !mutations.isEmpty else {
            return PreparedCommit(mutations: mutations)
        }
        let response: DocumentEngineResponse
        do {
            response = try await send(.prepareCommit(mutations))
        } catch let error as DocumentsError where error.underlying is PluginError || error.code == .unsupported {
            // A plugin built before the operation, or one whose handler keeps no prepared commits.
            prepares.supported.store(false, ordering: .relaxed)
            return PreparedCommit(mutations: mutations)
        }
        guard case .prepared(let handle) = response else { throw mismatch(.prepareCommit) }
        return PreparedCommit(
            mutations: mutations, engineWork: PluginPreparedCommit(handle: handle), preparedBy: prepares.identity)
    }

    /// The puts as mutations, prepared in the plugin: the mutations keep their entries, so that they can still be
    /// committed as they are if the plugin no longer holds the prepared commit.
    package func prepareCommit(_ puts: BulkPuts) async throws -> PreparedCommit {
        try await prepareCommit(puts.mutations())
    }

    package func commit(_ prepared: PreparedCommit, commitTime: Int64) async throws -> CommitResult {
        guard let work = prepared.engineWork else {
            return try await commit(prepared.mutations, commitTime: commitTime)
        }
        guard prepared.preparedBy == prepares.identity, let plugin = work as? PluginPreparedCommit else {
            throw PreparedCommit.wrongEngine()
        }
        let response: DocumentEngineResponse
        do {
            response = try await send(.commitPrepared(handle: plugin.handle, commitTime: commitTime))
        } catch let error as DocumentsError where error.code == .wrongEngine {
            // The plugin no longer holds it (nothing was written): commit the mutations themselves.
            return try await commit(prepared.mutations, commitTime: commitTime)
        }
        guard case .commit(let result) = response else { throw mismatch(.commitPrepared) }
        return result
    }
}
