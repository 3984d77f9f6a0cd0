/// A whole run's blocks, encoded ahead of its transaction (``RunWriter/encode(_:tuning:)``).
struct EncodedRun: Sendable {
    var blocks: [EncodedBlock]
    var entries: Int64
}
