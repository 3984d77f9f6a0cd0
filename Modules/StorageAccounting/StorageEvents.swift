public import SuiteCore

/// `storage.scanned`: a scan of a root finished (docs/events.md).
public struct StorageScannedEvent: BusEvent {
    public var name: String { "storage.scanned" }
    public var payload: Payload

    /// What the scan did.
    public struct Payload: Codable, Sendable, Hashable {
        /// The root (absolute, resolved).
        public var root: String
        /// Regular files indexed by this run.
        public var files: Int
        /// Their logical bytes.
        public var logicalBytes: Int64
        /// Their allocated bytes.
        public var allocatedBytes: Int64
        /// Units walked by this run.
        public var units: Int
        /// Whether the run resumed an interrupted scan.
        public var resumed: Bool
        /// Entries that could not be read.
        public var warnings: Int
    }

    /// Creates the event.
    package init(payload: Payload) { self.payload = payload }
}

/// `storage.cleaned`: a cleanup deleted files and their index rows (docs/events.md).
public struct StorageCleanedEvent: BusEvent {
    public var name: String { "storage.cleaned" }
    public var payload: Payload

    /// What the cleanup did.
    public struct Payload: Codable, Sendable, Hashable {
        /// Items deleted (file and row).
        public var items: Int
        /// Allocated bytes given back to the disk (hard links kept elsewhere not counted).
        public var freedBytes: Int64
        /// Items refused (unsafe path, outside the managed roots) or failed.
        public var refused: Int
    }

    /// Creates the event.
    package init(payload: Payload) { self.payload = payload }
}
