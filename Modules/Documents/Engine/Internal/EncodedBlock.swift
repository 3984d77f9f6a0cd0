import Foundation
import GRDB

/// A run's block, encoded (``RunWriter``), waiting for its row.
struct EncodedBlock: Sendable {
    var index: Int64
    var lastKey: [UInt8]
    var lastPath: [UInt8]
    var data: [UInt8]

    init(
        index: Int64, lastKey: UnsafeRawBufferPointer, lastPath: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) {
        self.index = index
        self.lastKey = [UInt8](lastKey)
        self.lastPath = [UInt8](lastPath)
        self.data = [UInt8](data)
    }

    /// Inserts `blocks` as rows of run `run`.
    static func insert(_ blocks: [EncodedBlock], run: Int64, _ db: Database) throws {
        let insert = try SQLiteStatement(db, RunWriter.insertBlockSQL)
        for block in blocks {
            try block.lastKey.withUnsafeBytes { lastKey in
                try block.lastPath.withUnsafeBytes { lastPath in
                    try block.data.withUnsafeBytes { data in
                        try RunWriter.insert(
                            insert, run: run, index: block.index, lastKey: lastKey, lastPath: lastPath, data: data)
                    }
                }
            }
        }
    }
}
