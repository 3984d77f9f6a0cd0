import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import StorageAccounting

@Suite("App size, snapshots, bus recording, idle scheduling")
struct ViewsTests {
    @Test("app size = bundle + (data − caches) + groups, in allocated bytes")
    func appSize() async throws {
        let bundle = try TestTree("bundle")
        try bundle.file("App", size: 10_000)
        let data = try TestTree("data")
        try data.file("Documents/db.sqlite", size: 50_000)
        try data.file("Library/Caches/big.bin", size: 100_000)
        let group = try TestTree("group")
        try group.file("shared.db", size: 5000)
        let size = try await AppSize.measure(
            bundle: bundle.root, data: data.root, caches: data.root + "/Library/Caches", groups: [group.root])
        let bundleSum = ExpectedSums(root: bundle.root)
        let dataSum = ExpectedSums(root: data.root)
        let cachesSum = ExpectedSums(root: data.root + "/Library/Caches")
        let groupSum = ExpectedSums(root: group.root)
        #expect(size.bundleBytes == bundleSum.allocated + bundleSum.otherAllocated)
        #expect(size.cachesBytes == cachesSum.allocated + cachesSum.otherAllocated)
        #expect(size.dataBytes == dataSum.allocated + dataSum.otherAllocated)
        #expect(size.totalBytes == size.bundleBytes + size.dataBytes - size.cachesBytes + size.groups[0].bytes)
        #expect(size.groups[0].bytes == groupSum.allocated + groupSum.otherAllocated)
    }

    @Test("snapshot diffs: inserted, removed, moved, updated")
    func snapshots() {
        func row(_ id: String, _ bytes: Int64) -> StorageGroupUsage {
            StorageGroupUsage(
                service: "s", groupId: id, usage: StorageUsage(items: 1, logicalBytes: bytes, allocatedBytes: bytes))
        }
        let old = StorageSnapshot(rows: [row("a", 50), row("b", 40), row("c", 30), row("d", 20)])
        let new = StorageSnapshot(rows: [row("c", 30), row("a", 50), row("e", 25), row("b", 41)])
        let diff = new.difference(from: old)
        #expect(diff.inserted == [.init(id: "s/e", index: 2)])
        #expect(diff.removed == [.init(id: "s/d", index: 3)])
        #expect(diff.moved == [.init(id: "s/c", from: 2, to: 0)])
        #expect(diff.updated == ["s/b"])
        #expect(new.difference(from: new).isEmpty)
    }

    /// A Cache event as the bus carries it (its payload: key, bytes, tier).
    static func event(_ name: String, _ key: String, _ bytes: Int, _ tier: String) -> GenericEvent {
        GenericEvent(
            name: name,
            payload: .object([
                "key": .string(key), "bytes": .int(Int64(bytes)), "tier": .string(tier), "message": .string(""),
            ]))
    }

    @Test("cache.store and cache.evict from a real bus become and stop being items of service caches")
    func busRecorder() async throws {
        let index = try makeIndex()
        let bus = EventBus()
        let recorder = StorageBusRecorder(bus: bus, index: index)
        recorder.start()
        let cache = bus.publisher(source: "cache")
        cache.publish(Self.event("cache.store", "GET https://x/1", 1000, "disk"))
        cache.publish(Self.event("cache.store", "GET https://x/2", 500, "disk"))
        cache.publish(Self.event("cache.store", "k", 10, "memory"))
        cache.publish(Self.event("cache.evict", "GET https://x/1", 1000, "disk"))
        cache.publish(Self.event("cache.hit", "k", 10, "memory"))
        await recorder.drain()
        let groups = try await index.groups(StorageFilter(services: ["caches"]), sort: .name, limit: nil)
        #expect(groups.map(\.groupId) == ["disk", "memory"])
        #expect(groups[0].usage == StorageUsage(items: 1, logicalBytes: 500, allocatedBytes: 500))
        #expect(try await index.item(id: StorageBusRecorder.itemID(tier: "disk", key: "GET https://x/2")) != nil)
        await recorder.stop()
        cache.publish(Self.event("cache.store", "late", 1, "disk"))
        #expect(try await index.total().items == 2)
        #expect(recorder.droppedCount == 0)
    }

    @Test("cache.remove drops an item; cache.clear drops the tier's group; totals follow")
    func busRecorderRemovals() async throws {
        let index = try makeIndex()
        let bus = EventBus()
        let recorder = StorageBusRecorder(bus: bus, index: index)
        recorder.start()
        let cache = bus.publisher(source: "cache")
        for key in ["a/1", "a/2", "b"] { cache.publish(Self.event("cache.store", key, 100, "sqlite")) }
        cache.publish(Self.event("cache.store", "s", 7, "protected"))
        cache.publish(Self.event("cache.store", "m", 5, "memory"))
        cache.publish(Self.event("cache.remove", "a/1", 100, "sqlite"))
        cache.publish(Self.event("cache.remove", "a/2", 100, "sqlite"))
        cache.publish(Self.event("cache.store", "a/2", 40, "sqlite"))  // stored again after its removal: kept
        await recorder.drain()
        #expect(try await index.usage(StorageFilter(services: ["caches"])).logicalBytes == 152)
        #expect(try await index.item(id: StorageBusRecorder.itemID(tier: "sqlite", key: "a/1")) == nil)
        #expect(try await index.item(id: StorageBusRecorder.itemID(tier: "sqlite", key: "a/2"))?.sizeInBytes == 40)

        cache.publish(GenericEvent(name: "cache.clear", payload: .object(["tier": .string("sqlite"), "entries": 2])))
        cache.publish(Self.event("cache.store", "c", 9, "sqlite"))  // after the clear: kept
        await recorder.drain()
        let groups = try await index.groups(StorageFilter(services: ["caches"]), sort: .name, limit: nil)
        #expect(groups.map(\.groupId) == ["memory", "protected", "sqlite"])
        #expect(groups.map(\.usage.items) == [1, 1, 1])
        #expect(try await index.total() == StorageUsage(items: 3, logicalBytes: 21, allocatedBytes: 21))
        await recorder.stop()
        #expect(recorder.droppedCount == 0 && recorder.failedBatchCount == 0)
    }

    @Test("the idle scheduler waits for the load to drop, and gives up after maxWait")
    func idleScheduler() async throws {
        let loads = Mutex<[Double]>([3.0, 2.0, 0.2])
        let scheduler = IdleScheduler(threshold: 0.5, interval: .milliseconds(1)) {
            loads.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        }
        let ran = try await scheduler.runWhenIdle { 42 }
        #expect(ran == 42)
        #expect(loads.withLock { $0 } == [0.2])
        let busy = IdleScheduler(threshold: 0.5, interval: .milliseconds(1)) { 9.0 }
        let skipped = try await busy.runWhenIdle(maxWait: .milliseconds(20)) { 1 }
        #expect(skipped == nil)
        #expect(try IdleScheduler.systemLoadAverage() >= 0)
    }
}
