public import Documents
public import Testing

/// The behaviour every ``DocumentEngine`` must show, built in or from a plugin: a test target lists its engines as
/// ``DocumentEngineFactory`` values and runs every check on each, one test case per check and engine:
///
/// ```swift
/// import DocumentEngineContract
/// import Testing
///
/// @Suite struct DocumentEngineContractTests {
///     @Test(arguments: DocumentEngineContract.cases([.myEngine]))
///     func contract(_ check: DocumentEngineContract.Case) async throws { try await check.run() }
/// }
/// ```
///
/// Each check makes its engine with the factory, works through the protocol only (`@_spi(Engine)`), and records
/// failures with `#expect`. The checks: commits, preconditions and checks, reads, scans, the change log and metadata
/// (DocumentEngineContract+Commits.swift), browsing (+Browsing) and names (+Names).
public enum DocumentEngineContract {
    /// One check of the contract, by name.
    public struct Check: Sendable {
        /// The check's name, e.g. `putThenReadBack`.
        public let name: String
        let run: @Sendable (DocumentEngineFactory) async throws -> Void

        init(_ name: String, _ run: @escaping @Sendable (DocumentEngineFactory) async throws -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// A check on one engine: a test case.
    public struct Case: Sendable, CustomTestStringConvertible {
        /// The check.
        public let check: Check
        /// The engine's factory.
        public let factory: DocumentEngineFactory

        /// Runs the check on a fresh engine from the factory.
        public func run() async throws { try await check.run(factory) }

        public var testDescription: String { "\(factory.name): \(check.name)" }
    }

    /// Every check, each run on every factory.
    public static func cases(_ factories: [DocumentEngineFactory]) -> [Case] {
        factories.flatMap { factory in checks.map { Case(check: $0, factory: factory) } }
    }

    /// Every check of the contract.
    public static let checks: [Check] = [
        Check("checksAreVerifiedWithTheCommitAndWriteNothing", checksAreVerifiedWithTheCommitAndWriteNothing),
        Check("updateMetadataReadsAndWritesInOneStep", updateMetadataReadsAndWritesInOneStep),
        Check("putThenReadBack", putThenReadBack),
        Check("emptyBodyAndKeyRoundTrip", emptyBodyAndKeyRoundTrip),
        Check("versionsAreCommitSequences", versionsAreCommitSequences),
        Check("emptyCommitWritesNothing", emptyCommitWritesNothing),
        Check("preconditionsAreChecked", preconditionsAreChecked),
        Check("failingPreconditionChangesNothing", failingPreconditionChangesNothing),
        Check("laterMutationsSeeEarlierOnesInTheSameCommit", laterMutationsSeeEarlierOnesInTheSameCommit),
        Check("changeLogRecordsEveryCommitInOrder", changeLogRecordsEveryCommitInOrder),
        Check("scansInKeyThenPathOrder", scansInKeyThenPathOrder),
        Check("scanReadingDocumentsMatchesScanThenGet", scanReadingDocumentsMatchesScanThenGet),
        Check("scanBoundsAreInclusiveOrExclusive", scanBoundsAreInclusiveOrExclusive),
        Check("scanReverseAndLimit", scanReverseAndLimit),
        Check("updateReplacesIndexEntries", updateReplacesIndexEntries),
        Check("deleteRemovesDocumentAndEntries", deleteRemovesDocumentAndEntries),
        Check("listsACollectionInPathOrder", listsACollectionInPathOrder),
        Check("listsACollectionGroupInDocumentNameOrder", listsACollectionGroupInDocumentNameOrder),
        Check("rejectsMalformedPaths", rejectsMalformedPaths),
        Check("addIndexEntriesBackfillsWithoutNewVersions", addIndexEntriesBackfillsWithoutNewVersions),
        Check("removeIndexDropsEveryEntry", removeIndexDropsEveryEntry),
        Check("metadataRoundTrips", metadataRoundTrips),
        Check("reopeningKeepsEverything", reopeningKeepsEverything),
        Check("concurrentCommitsAllLandWithDistinctSequences", concurrentCommitsAllLandWithDistinctSequences),
        Check("collectionIDsSkipOverDocumentsAndDeeperCollections", collectionIDsSkipOverDocumentsAndDeeperCollections),
        Check(
            "collectionIDsUnderACollectionNameItsDocumentsWithSubcollections",
            collectionIDsUnderACollectionNameItsDocumentsWithSubcollections),
        Check("canonicallyEquivalentPathsAreTwoDocuments", canonicallyEquivalentPathsAreTwoDocuments),
        Check("readsNamingPathsWithNULFindNothing", readsNamingPathsWithNULFindNothing),
    ]
}

/// An engine made for one check, with a way to reopen its storage when the engine persists.
public struct DocumentEngineUnderTest: Sendable {
    /// The fresh, empty engine.
    public var engine: any DocumentEngine
    /// Opens a second engine over the same storage (after the first is dropped), or `nil` for an engine that keeps
    /// nothing across instances.
    public var reopen: (@Sendable () async throws -> any DocumentEngine)?

    /// Creates a handle.
    public init(engine: any DocumentEngine, reopen: (@Sendable () async throws -> any DocumentEngine)?) {
        self.engine = engine
        self.reopen = reopen
    }
}

/// A named way to make a fresh engine; the contract runs every check once per factory. A plugin engine joins by a
/// factory that creates it through the plugin adapter.
public struct DocumentEngineFactory: Sendable, CustomTestStringConvertible {
    /// Shown in test names, e.g. `sqlite`.
    public var name: String
    /// Makes a fresh, empty engine.
    public var make: @Sendable () async throws -> DocumentEngineUnderTest

    /// Creates a factory.
    public init(name: String, make: @escaping @Sendable () async throws -> DocumentEngineUnderTest) {
        self.name = name
        self.make = make
    }

    public var testDescription: String { name }
}
