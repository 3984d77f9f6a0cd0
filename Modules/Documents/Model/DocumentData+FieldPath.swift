extension Dictionary where Key == String, Value == DocumentValue {
    /// The value at `field`, following nested maps, or `nil` if any step is missing or not a map.
    ///
    /// ```swift
    /// data.value(at: try FieldPath("address.city"))   // .string("Paris")
    /// ```
    public func value(at field: FieldPath) -> DocumentValue? {
        let segments = field.segments
        guard var current = self[segments[0]] else { return nil }
        var i = 1
        while i < segments.count {
            guard case .map(let map) = current, let next = map[segments[i]] else { return nil }
            current = next
            i += 1
        }
        return current
    }

    /// Sets the value at `field`, creating intermediate maps (and replacing intermediate values that are not maps).
    public mutating func setValue(_ value: DocumentValue, at field: FieldPath) {
        Self.set(value, at: field.segments[...], in: &self)
    }

    /// Removes the value at `field` and returns it, or returns `nil` if there was none. Parent maps are kept.
    @discardableResult
    public mutating func removeValue(at field: FieldPath) -> DocumentValue? {
        Self.remove(at: field.segments[...], in: &self)
    }

    private static func set(
        _ value: DocumentValue, at segments: ArraySlice<String>, in map: inout [String: DocumentValue]
    ) {
        let name = segments[segments.startIndex]
        if segments.count == 1 {
            map[name] = value
            return
        }
        var child: [String: DocumentValue]
        if case .map(let existing)? = map.removeValue(forKey: name) {
            child = existing
        } else {
            child = [:]
        }
        set(value, at: segments.dropFirst(), in: &child)
        map[name] = .map(child)
    }

    private static func remove(at segments: ArraySlice<String>, in map: inout [String: DocumentValue]) -> DocumentValue?
    {
        let name = segments[segments.startIndex]
        if segments.count == 1 { return map.removeValue(forKey: name) }
        guard case .map(var child)? = map[name] else { return nil }
        map[name] = .null  // drop the reference so `child` is uniquely owned
        let removed = remove(at: segments.dropFirst(), in: &child)
        map[name] = .map(child)
        return removed
    }
}
