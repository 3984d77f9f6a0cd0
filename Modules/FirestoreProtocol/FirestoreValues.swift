import Documents
import Foundation
import GRPCCore
import SwiftProtobuf

/// Firestore's protocol values to Suite's and back. A door translates: every value type maps one to one, so a
/// document written over gRPC reads back identically through the JSON API and the reverse.
struct FirestoreValues {
    /// The database's names, to read and write reference values.
    let names: ResourceNames

    // MARK: Protocol to Suite

    func value(_ value: Google_Firestore_V1_Value, field: String) throws -> DocumentValue {
        switch value.valueType {
        case nil, .nullValue?: return .null
        case .booleanValue(let flag)?: return .bool(flag)
        case .integerValue(let number)?: return .int(number)
        case .doubleValue(let number)?: return .double(number)
        case .timestampValue(let time)?:
            return .timestamp(Timestamp(microseconds: try Self.microseconds(time, what: "timestamp in field \(field)")))
        case .stringValue(let text)?: return .string(text)
        case .bytesValue(let data)?: return .bytes([UInt8](data))
        case .referenceValue(let name)?:
            return .reference(try names.documentPath(name, what: "reference value in field \(field)").string)
        case .geoPointValue(let point)?:
            guard (-90...90).contains(point.latitude), (-180...180).contains(point.longitude) else {
                throw RPCError(
                    code: .invalidArgument,
                    message: "Invalid geo point in field \(field): latitude must be in [-90, 90] and longitude in "
                        + "[-180, 180]")
            }
            return .geoPoint(GeoPoint(latitude: point.latitude, longitude: point.longitude))
        case .arrayValue(let array)?:
            var values: [DocumentValue] = []
            values.reserveCapacity(array.values.count)
            for element in array.values {
                if case .arrayValue? = element.valueType {
                    throw RPCError(
                        code: .invalidArgument, message: "Cannot have nested arrays in field \(field)")
                }
                values.append(try self.value(element, field: field))
            }
            return .array(values)
        case .mapValue(let map)?:
            return .map(try fields(map.fields, prefix: field + "."))
        }
    }

    func fields(_ fields: [String: Google_Firestore_V1_Value], prefix: String = "") throws -> DocumentData {
        var data: DocumentData = [:]
        data.reserveCapacity(fields.count)
        for (name, value) in fields {
            guard !name.isEmpty else {
                throw RPCError(code: .invalidArgument, message: "Field names must not be empty (in \(prefix))")
            }
            data[name] = try self.value(value, field: prefix + name)
        }
        return data
    }

    // MARK: Suite to protocol

    func proto(_ value: DocumentValue) -> Google_Firestore_V1_Value {
        var out = Google_Firestore_V1_Value()
        switch value {
        case .null: out.nullValue = .nullValue
        case .bool(let flag): out.booleanValue = flag
        case .int(let number): out.integerValue = number
        case .double(let number): out.doubleValue = number
        case .timestamp(let time): out.timestampValue = Self.timestamp(time.microseconds)
        case .string(let text): out.stringValue = text
        case .bytes(let bytes): out.bytesValue = Data(bytes)
        case .reference(let path): out.referenceValue = names.documentName(path)
        case .geoPoint(let point):
            var latLng = Google_Type_LatLng()
            latLng.latitude = point.latitude
            latLng.longitude = point.longitude
            out.geoPointValue = latLng
        case .array(let values):
            var array = Google_Firestore_V1_ArrayValue()
            array.values = values.map(proto)
            out.arrayValue = array
        case .map(let fields):
            var map = Google_Firestore_V1_MapValue()
            map.fields = protoFields(fields)
            out.mapValue = map
        }
        return out
    }

    func protoFields(_ data: DocumentData) -> [String: Google_Firestore_V1_Value] {
        var fields: [String: Google_Firestore_V1_Value] = [:]
        fields.reserveCapacity(data.count)
        for (name, value) in data { fields[name] = proto(value) }
        return fields
    }

    /// The protocol's document for an existing snapshot; `mask` keeps only those fields.
    func document(_ snapshot: DocumentSnapshot, mask: [FieldPath]? = nil) -> Google_Firestore_V1_Document {
        var document = Google_Firestore_V1_Document()
        document.name = names.documentName(snapshot.path.string)
        let data = snapshot.data ?? [:]
        if let mask {
            var kept: DocumentData = [:]
            for field in mask where !field.isDocumentID {
                if let value = data.value(at: field) { kept.setValue(value, at: field) }
            }
            document.fields = protoFields(kept)
        } else {
            document.fields = protoFields(data)
        }
        if let created = snapshot.createTime { document.createTime = Self.timestamp(created.microseconds) }
        if let updated = snapshot.updateTime { document.updateTime = Self.timestamp(updated.microseconds) }
        return document
    }

    static func timestamp(_ microseconds: Int64) -> Google_Protobuf_Timestamp {
        var seconds = microseconds / 1_000_000
        var remainder = microseconds % 1_000_000
        if remainder < 0 {
            seconds -= 1
            remainder += 1_000_000
        }
        var time = Google_Protobuf_Timestamp()
        time.seconds = seconds
        time.nanos = Int32(remainder * 1_000)
        return time
    }

    /// Firestore's range of timestamps, in seconds: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    static let timestampSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// A protocol timestamp in microseconds; one outside Firestore's range (whose microseconds might not even fit in
    /// 64 bits) or with nanos outside 0..<10^9 is INVALID_ARGUMENT.
    static func microseconds(_ time: Google_Protobuf_Timestamp, what: String) throws -> Int64 {
        guard timestampSeconds.contains(time.seconds) else {
            throw RPCError(
                code: .invalidArgument,
                message: "Invalid \(what): seconds \(time.seconds) out of range (0001-01-01 to 9999-12-31)")
        }
        guard (0..<1_000_000_000).contains(time.nanos) else {
            throw RPCError(code: .invalidArgument, message: "Invalid \(what): nanos out of range")
        }
        return time.seconds * 1_000_000 + Int64(time.nanos / 1_000)
    }

    /// A field path as the protocol writes it (dotted, backquoted names), checked.
    static func fieldPath(_ text: String, what: String) throws -> FieldPath {
        if text == "__name__" { return .documentID }
        do {
            return try FieldPath(text)
        } catch let error as DocumentsError {
            throw RPCError(code: .invalidArgument, message: "Invalid field path '\(text)' in \(what): \(error.message)")
        }
    }
}
