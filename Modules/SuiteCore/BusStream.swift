import Synchronization

/// Counts events dropped by one stream subscription.
final class DropCounter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A stream subscription: an `AsyncSequence` of events with a bounded buffer and a visible drop count.
/// A stream subscription: an `AsyncSequence` of events with a bounded buffer and a visible drop count.
public struct BusStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias AsyncIterator = AsyncStream<Element>.Iterator
    public typealias Failure = Never

    let stream: AsyncStream<Element>
    let continuation: AsyncStream<Element>.Continuation
    let counter: DropCounter

    /// Events that arrived while the buffer was full and were dropped.
    public var droppedCount: Int { counter.count }

    /// Ends the subscription: buffered events are still delivered, then iteration finishes.
    public func cancel() { continuation.finish() }

    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator { stream.makeAsyncIterator() }
}
