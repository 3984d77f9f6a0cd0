/// What one request costs against the quotas: documents read, written and deleted.
package struct QuotaCost: Sendable, Hashable {
    /// Documents read.
    package var reads: Int
    /// Documents set, updated or created.
    package var writes: Int
    /// Documents deleted.
    package var deletes: Int

    /// Creates a cost.
    package init(reads: Int = 0, writes: Int = 0, deletes: Int = 0) {
        self.reads = reads
        self.writes = writes
        self.deletes = deletes
    }

    /// `count` documents read, at least one: Firestore bills a query that answers nothing one read.
    package static func reads(_ count: Int) -> QuotaCost { QuotaCost(reads: max(1, count)) }

    /// The writes of a commit, a push or a `{op, path, …}` list: `delete` ops are deletes, every other op a write.
    package static func writes(ops: some Sequence<String?>) -> QuotaCost {
        var cost = QuotaCost()
        for op in ops {
            if op == "delete" { cost.deletes += 1 } else { cost.writes += 1 }
        }
        return cost
    }

    /// The amount of one kind.
    package subscript(kind: QuotaKind) -> Int {
        switch kind {
        case .reads: reads
        case .writes: writes
        case .deletes: deletes
        }
    }

    /// Whether the request costs nothing.
    package var isZero: Bool { reads <= 0 && writes <= 0 && deletes <= 0 }
}
