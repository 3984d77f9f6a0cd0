/// The sizes that shape the SQLite engine's index (their measurements: Modules/Documents/README.md). Tests shrink
/// them to make every commit flush and merge.
struct IndexTuning: Sendable {
    /// Pending operations that start a flush into a run, in the background; also the size of the smallest run tier.
    /// Every process holds this many in memory and reads them from the change log on its first scan.
    var flushThreshold = 131_072
    /// Pending operations past which a commit flushes them itself instead of waiting for the background flush
    /// (which holds them back only while it writes a run, or when it keeps failing).
    var maximumPending: Int { flushThreshold * 2 }
    /// A commit bringing this many operations writes them as a run directly (with everything pending).
    var directRunThreshold = 8_192
    /// How many runs of one size tier are merged into one of the next; a scan seeks in up to `fanIn - 1` runs per
    /// tier.
    var fanIn = 8
    /// Past this many runs a bulk commit waits for the background merges (at most ``maximumMergeWait``) before it
    /// writes; see ``SQLiteDocumentEngine``'s backpressure.
    var maximumRuns = 24
    /// The longest a commit waits for the background merges while there are more than ``maximumRuns`` runs.
    var maximumMergeWait = Duration.milliseconds(250)
    /// Past this many runs a commit merges them itself, in its transaction: only when background merges cannot keep
    /// up at all (they keep failing, or no process stays to merge).
    var maximumRunsBeforeInlineMerge: Int { maximumRuns * 4 }
    /// A block is closed once its data reaches this many bytes.
    var blockBytes = 4_000
    /// The most pending operations a graceful shutdown leaves behind; past it, it flushes them into a run first (the
    /// next process reads at most this many from the change log).
    var leaveBehind = 8_192
    /// The most operations one run of a backfill (``SQLiteDocumentEngine/addIndexEntries(_:)``) or a rebuild holds:
    /// larger ones are written as several runs, so memory stays bounded (and a buffer's 32-bit arena offsets never
    /// wrap).
    var backfillChunk = 131_072
    /// The most entries a verification holds in memory at once: past it, it checks the documents in partitions.
    var verificationChunk = 262_144

    static let standard = IndexTuning()

    /// The size tier of a run of `entries` entries: 0 below `fanIn × directRunThreshold`, then one more per factor
    /// of `fanIn`, so an import's and a flush's runs are tier 1.
    func tier(_ entries: Int64) -> Int {
        var tier = 0
        var limit = Int64(directRunThreshold) * Int64(fanIn)
        while entries >= limit, tier < 30 {
            tier += 1
            limit *= Int64(fanIn)
        }
        return tier
    }
}
