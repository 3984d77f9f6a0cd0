/// A dictionary keyed by strings that are equal only when their UTF-8 bytes are.
///
/// Swift's `String` keys are equal when canonically equivalent, so `"c/\u{E9}"` and `"c/e\u{301}"` would be one
/// key, though they are two document paths for Firestore and for the SQLite and PostgreSQL engines (which compare
/// bytes). The in-memory engine keys its documents, collections and indexes with this.
struct ExactKeyDictionary<Value>: Sequence {
    /// A string hashed and compared by its UTF-8 bytes.
    struct Key: Hashable {
        let text: String

        static func == (a: Key, b: Key) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

        func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private var storage: [Key: Value] = [:]

    init() {}

    subscript(key: String) -> Value? {
        get { storage[Key(text: key)] }
        set { storage[Key(text: key)] = newValue }
        _modify { yield &storage[Key(text: key)] }
    }

    subscript(key: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { storage[Key(text: key), default: defaultValue()] }
        _modify { yield &storage[Key(text: key), default: defaultValue()] }
    }

    @discardableResult
    mutating func removeValue(forKey key: String) -> Value? { storage.removeValue(forKey: Key(text: key)) }

    var keys: [String] { storage.keys.map(\.text) }

    var count: Int { storage.count }

    func makeIterator() -> AnyIterator<(key: String, value: Value)> {
        var inner = storage.makeIterator()
        return AnyIterator { inner.next().map { (key: $0.key.text, value: $0.value) } }
    }
}
