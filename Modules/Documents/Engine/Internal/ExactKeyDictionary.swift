/// A dictionary keyed by strings that are equal only when their UTF-8 bytes are.
///
/// Swift's `String` keys are equal when canonically equivalent, so `"c/\u{E9}"` and `"c/e\u{301}"` would be one
/// key, though they are two document paths for Firestore and for the SQLite and PostgreSQL engines (which compare
/// bytes). The in-memory engine keys its documents, collections and indexes with this.
package struct ExactKeyDictionary<Value>: Sequence {
    /// A string hashed and compared by its UTF-8 bytes.
    package struct Key: Hashable {
        package let text: String

        package static func == (a: Key, b: Key) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

        package func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private var storage: [Key: Value] = [:]

    package init() {}

    package subscript(key: String) -> Value? {
        get { storage[Key(text: key)] }
        set { storage[Key(text: key)] = newValue }
        _modify { yield &storage[Key(text: key)] }
    }

    package subscript(key: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { storage[Key(text: key), default: defaultValue()] }
        _modify { yield &storage[Key(text: key), default: defaultValue()] }
    }

    @discardableResult
    package mutating func removeValue(forKey key: String) -> Value? { storage.removeValue(forKey: Key(text: key)) }

    package var keys: [String] { storage.keys.map(\.text) }

    package var count: Int { storage.count }

    package func makeIterator() -> AnyIterator<(key: String, value: Value)> {
        var inner = storage.makeIterator()
        return AnyIterator { inner.next().map { (key: $0.key.text, value: $0.value) } }
    }
}

extension ExactKeyDictionary: Sendable where Value: Sendable {}
extension ExactKeyDictionary.Key: Sendable {}

extension String {
    /// Whether the two strings have the same UTF-8 bytes: how Firestore and the engines compare names and paths.
    /// Swift's `==` is canonical equivalence, under which `"\u{E9}"` and `"e\u{301}"` are equal.
    package func hasSameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
