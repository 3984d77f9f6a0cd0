/// How a commit's mutations map to change-log records: one record per distinct path, in order of first appearance,
/// with the path's final state.
struct ChangeSlots: Sendable {
    /// For each record, the position of the last mutation of its path.
    var last: [Int]
    /// For each mutation, the position of its path's record.
    var slot: [Int]

    init(_ mutations: [DocumentMutation]) {
        if mutations.count == 1 {
            last = [0]
            slot = [0]
            return
        }
        // Paths are one when their bytes are (not when canonically equivalent, as Swift's strings would be).
        var slotOfPath = ExactKeyDictionary<Int>()
        last = []
        last.reserveCapacity(mutations.count)
        slot = []
        slot.reserveCapacity(mutations.count)
        for (i, mutation) in mutations.enumerated() {
            if let existing = slotOfPath[mutation.path] {
                last[existing] = i
                slot.append(existing)
            } else {
                slotOfPath[mutation.path] = last.count
                slot.append(last.count)
                last.append(i)
            }
        }
    }
}
