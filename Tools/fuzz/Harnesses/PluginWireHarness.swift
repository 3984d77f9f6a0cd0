import CachePluginSupport
@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import SuitePluginKit

/// The buffers that cross the plugin boundary, decoded as the host and a plugin decode them: the first byte picks the
/// format (a documents engine's request or response of some operation, a cache store's request or response, observed
/// events, an encoded document); the rest is the buffer.
enum PluginWireHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2 else { return }
        let selector = Int(bytes[0])
        let operationIndex = Int(bytes[1])
        let payload = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(2))
        switch selector % 6 {
        case 0:
            let operations = DocumentEngineOperation.allCases
            let operation = operations[operationIndex % operations.count]
            if let request = try? DocumentEngineWire.decodeRequest(operation, from: payload) {
                _ = DocumentEngineWire.encode(request)
            }
        case 1:
            let operations = DocumentEngineOperation.allCases
            let operation = operations[operationIndex % operations.count]
            if let response = try? DocumentEngineWire.decodeResponse(operation, from: payload) {
                _ = DocumentEngineWire.encode(response)
            }
        case 2:
            let operations = CacheStoreOperation.allCases
            let operation = operations[operationIndex % operations.count]
            if let request = try? CacheStoreWire.decodeRequest(operation, from: payload) {
                _ = CacheStoreWire.encode(request)
                _ = try? CacheStoreWire.decodeResponse(to: request, from: payload)
            }
        case 3:
            if let events = try? ObserverWire.decode(Array(payload)) { _ = ObserverWire.encode(events) }
        case 4:
            let operation = ["event", "events", "flush"][operationIndex % 3]
            _ = try? ObserverRequest.decodePayload(operation: operation, from: payload)
        default:
            if let data = try? ValueCodec.decode(payload) {
                let encoded = ValueCodec.encode(data)
                guard let again = try? ValueCodec.decode(encoded), ValueCodec.encode(again) == encoded else {
                    FuzzInput.fail("a decoded document does not survive encode and decode")
                }
            }
        }
    }
}
