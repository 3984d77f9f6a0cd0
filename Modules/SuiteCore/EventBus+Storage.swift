import Foundation

// The bus's immutable subscriber lists: replaced on subscribe and cancel, read without locks by publishers.

/// A payload encoded to JSON at most once per publish, for the name-based subscribers that need another type.
@usableFromInline
final class EncodedPayload: @unchecked Sendable {
    // @unchecked: used by one publish on one thread.
    private let payload: any Encodable
    private var data: Data??

    @usableFromInline init(_ payload: any Encodable) { self.payload = payload }

    func decode<P: Decodable>(_ type: P.Type) -> P? {
        if data == nil {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            data = .some(try? encoder.encode(payload))
        }
        guard let bytes = data ?? nil else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(P.self, from: bytes)
    }
}

/// The subscribers at one moment: replaced, never mutated.
@usableFromInline
final class Snapshot: @unchecked Sendable {
    // @unchecked: immutable; `typedLists` are unretained pointers to the lists that `typed` owns.
    let typed: [TypedSlot]
    @usableFromInline let typedKeys: [ObjectIdentifier]
    @usableFromInline let typedLists: [UnsafeMutableRawPointer]
    let all: [HandlerEntry<any BusEvent>]
    /// `all` without reference counting, for the publish loop (`all` keeps the entries alive).
    @usableFromInline let allUnretained: [Unmanaged<HandlerEntry<any BusEvent>>]
    @usableFromInline let named: [String: [NamedEntry]]
    @usableFromInline let hasNamed: Bool
    @usableFromInline let isEmpty: Bool
    /// Whether a named or catch-all subscriber takes envelopes (typed lists say so themselves).
    @usableFromInline let othersWantEnvelope: Bool

    init(typed: [TypedSlot], all: [HandlerEntry<any BusEvent>], named: [String: [NamedEntry]]) {
        self.typed = typed
        self.typedKeys = typed.map(\.key)
        self.typedLists = typed.map { Unmanaged.passUnretained($0.list as AnyObject).toOpaque() }
        self.all = all
        self.allUnretained = all.map { Unmanaged.passUnretained($0) }
        self.named = named
        self.hasNamed = !named.isEmpty
        self.isEmpty = typed.isEmpty && all.isEmpty && named.isEmpty
        self.othersWantEnvelope = !named.isEmpty || all.contains { $0.takesEnvelope }
    }
}

/// The handlers of one event type. A linear scan over a few types beats hashing on every publish.
struct TypedSlot: Sendable {
    let key: ObjectIdentifier
    var list: any HandlerListProtocol
}

/// A name-based subscriber: gets the publisher's payload, its lazily encoded JSON and the envelope.
@usableFromInline
struct NamedEntry: Sendable {
    let id: UInt64
    @usableFromInline let handler: @Sendable (any Sendable, EncodedPayload, EventEnvelope) -> Void
}

// MARK: - Handler storage

/// One subscriber's handler. A class, so the publish loop can call it through an unretained reference: the closure is
/// borrowed from a `let`, with no reference counting per delivery.
@usableFromInline
final class HandlerEntry<E>: Sendable {
    let id: UInt64
    // Two non-optional closures and a flag rather than optionals: the publish loop calls a `let` closure in place
    // (binding an optional closure would retain and release it on every delivery).
    /// The handler when it takes no envelope (none is made for it).
    @usableFromInline let plain: @Sendable (E) -> Void
    /// The handler when it takes the envelope.
    @usableFromInline let full: @Sendable (E, EventEnvelope) -> Void
    /// Whether ``full`` is the handler.
    @usableFromInline let takesEnvelope: Bool

    init(id: UInt64, plain: @escaping @Sendable (E) -> Void) {
        self.id = id
        self.plain = plain
        self.full = { _, _ in }
        self.takesEnvelope = false
    }

    init(id: UInt64, full: @escaping @Sendable (E, EventEnvelope) -> Void) {
        self.id = id
        self.plain = { _ in }
        self.full = full
        self.takesEnvelope = true
    }

    private init(
        id: UInt64, plain: @escaping @Sendable (E) -> Void, full: @escaping @Sendable (E, EventEnvelope) -> Void,
        takesEnvelope: Bool
    ) {
        self.id = id
        self.plain = plain
        self.full = full
        self.takesEnvelope = takesEnvelope
    }

    func with(id: UInt64) -> HandlerEntry<E> {
        HandlerEntry(id: id, plain: plain, full: full, takesEnvelope: takesEnvelope)
    }
}

@usableFromInline
protocol HandlerListProtocol: AnyObject, Sendable {
    var count: Int { get }
    func removing(id: UInt64) -> any HandlerListProtocol
}

/// An immutable list of handlers: replaced, never mutated, so publishers can use a snapshot without the lock.
@usableFromInline
final class HandlerList<E>: HandlerListProtocol, Sendable {
    let entries: [HandlerEntry<E>]
    /// `entries` without reference counting, for the publish loop (`entries` keeps them alive).
    @usableFromInline let unretained: [Unmanaged<HandlerEntry<E>>]
    /// Whether a handler takes the envelope.
    @usableFromInline let wantsEnvelope: Bool
    init(entries: [HandlerEntry<E>]) {
        self.entries = entries
        self.unretained = entries.map { Unmanaged.passUnretained($0) }
        self.wantsEnvelope = entries.contains { $0.takesEnvelope }
    }
    @usableFromInline var count: Int { entries.count }
    @usableFromInline func removing(id: UInt64) -> any HandlerListProtocol {
        HandlerList(entries: entries.filter { $0.id != id })
    }
}
