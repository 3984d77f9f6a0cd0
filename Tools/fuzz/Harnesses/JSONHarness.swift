import Documents
import Foundation
import SuiteCore

/// `JSONValue(parsing:)` on arbitrary bytes; what parses must print and parse back to the same value, and convert to a
/// document value (or fail with an error) the way the JSON API converts bodies.
enum JSONHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let value = try? JSONValue(parsing: bytes) else { return }
        let printed = value.jsonString
        guard let again = try? JSONValue(parsing: printed) else {
            FuzzInput.fail("printed JSON does not parse: \(printed)")
        }
        if again.jsonString != printed { FuzzInput.fail("printing is not stable: \(printed) vs \(again.jsonString)") }
        _ = try? DocumentJSON.value(from: value)
        _ = try? DocumentJSON.data(from: value)
    }
}
