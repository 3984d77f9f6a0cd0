@_spi(Engine) import Documents
import SuiteCore

/// The `json` option: a body as the JSON text stored in `documents.data` (JSONB), in the Documents module's JSON form
/// (`$timestamp`, `$bytes`, … tags for values JSON has no type for), so that SQL tools can read documents.
///
/// Engines never depend on what a body holds: one that is not a Documents body (the engine contract's tests store
/// plain bytes) gets no JSON (`''`, stored as `NULL`) rather than failing the commit.
enum PostgresJSON {
    static func text(_ body: [UInt8]) -> String {
        guard let data = try? ValueCodec.decode(body) else { return "" }
        return DocumentJSON.json(from: data).jsonString
    }
}
