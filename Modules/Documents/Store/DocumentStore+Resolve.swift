import Foundation
import SuiteCore

/// How one write becomes a document's new data: a replacement, a merge (all fields, or the listed ones), an update of
/// field paths, or a patch; transforms (server time, increments, array unions) resolve against the current data.
extension DocumentStore {
    /// Applies one write to the current data (`nil` = missing); returns the new data, `nil` for a delete.
    func resolve(_ write: PendingWrite, current: DocumentData?, commitTime: Int64) throws -> DocumentData? {
        switch write.operation {
        case .delete:
            return nil
        case .replace(let data):
            return data
        case .set(let fields, .none):
            return try Self.replacement(fields, commitTime: commitTime)
        case .set(let fields, .all):
            var data = current ?? [:]
            var transforms: [(FieldPath, FieldTransform)] = []
            try Self.mergeDeep(fields, prefix: [], into: &data, transforms: &transforms)
            try Self.apply(transforms, to: &data, commitTime: commitTime)
            return data
        case .set(let fields, .fields(let mask)):
            return try Self.merged(fields, mask: mask, into: current ?? [:], commitTime: commitTime)
        case .update(let fields):
            return try Self.updated(current, fields, path: write.path, commitTime: commitTime)
        case .patch(let mask, let fields, let transforms):
            return Self.patched(current, mask: mask, data: fields, transforms: transforms, commitTime: commitTime)
        }
    }

    /// A replacing set: the document becomes `fields`, then their transforms apply (a delete has no place here).
    private static func replacement(_ fields: [String: FieldValue], commitTime: Int64) throws -> DocumentData {
        var data: DocumentData = [:]
        data.reserveCapacity(fields.count)
        var transforms: [(FieldPath, FieldTransform)] = []
        for (name, value) in fields {
            if case .value(let plain) = value.kind {
                data[name] = plain
                continue
            }
            let field = try FieldPath(segments: [name])
            let flat = try value.flatten(at: field)
            if let literal = flat.literal { data[name] = literal }
            transforms.append(contentsOf: flat.transforms)
        }
        if transforms.contains(where: { $0.1 == .delete }) {
            throw DocumentsError(
                .invalidValue, "FieldValue.delete can only be used in an update or a merging set",
                hint: "use setData(…, merge: true) or updateData")
        }
        try apply(transforms, to: &data, commitTime: commitTime)
        return data
    }

    /// A set with `mergeFields`: each path of `mask` takes its value in `fields` (which must have one), then the
    /// transforms apply.
    private static func merged(
        _ fields: [String: FieldValue], mask: [FieldPath], into data: DocumentData, commitTime: Int64
    ) throws -> DocumentData {
        var data = data
        try checkDeletes(in: fields, mask: mask)
        var flatValues: [FieldPath: FlattenedWrite] = [:]
        for field in mask {
            guard let first = field.segments.first, let top = fields[first] else {
                throw missingMaskField(field)
            }
            var value = top
            var ok = true
            for segment in field.segments.dropFirst() {
                switch value.kind {
                case .map(let nested) where nested[segment] != nil:
                    value = nested[segment] ?? value
                case .value(.map(let nested)) where nested[segment] != nil:
                    value = FieldValue(nested[segment] ?? .null)
                default:
                    ok = false
                }
                if !ok { break }
            }
            guard ok else { throw missingMaskField(field) }
            flatValues[field] = try value.flatten(at: field)
        }
        var transforms: [(FieldPath, FieldTransform)] = []
        for field in mask {
            guard let flat = flatValues[field] else { continue }
            if let literal = flat.literal { data.setValue(literal, at: field) }
            transforms.append(contentsOf: flat.transforms)
        }
        try apply(transforms, to: &data, commitTime: commitTime)
        return data
    }

    /// An update of the existing document at `path`: each listed field set (or transformed).
    private static func updated(
        _ current: DocumentData?, _ fields: [(FieldPath, FieldValue)], path: DocumentPath, commitTime: Int64
    ) throws -> DocumentData {
        guard var data = current else {
            throw DocumentsError(
                .notFound, "cannot update '\(path.string)': the document does not exist",
                hint: "use setData (with merge: true) to create it")
        }
        var transforms: [(FieldPath, FieldTransform)] = []
        for (field, value) in fields {
            if field == FieldPath.documentID {
                throw DocumentsError(.invalidField, "the document id cannot be updated")
            }
            let flat = try value.flatten(at: field)
            if let literal = flat.literal { data.setValue(literal, at: field) }
            transforms.append(contentsOf: flat.transforms)
        }
        try apply(transforms, to: &data, commitTime: commitTime)
        return data
    }

    /// Firestore's write (see ``PendingWrite/Operation/patch(mask:data:transforms:)``).
    private static func patched(
        _ current: DocumentData?, mask: [FieldPath]?, data fields: DocumentData,
        transforms: [(FieldPath, FieldTransform)], commitTime: Int64
    ) -> DocumentData {
        var data: DocumentData
        if let mask {
            data = current ?? [:]
            for field in mask {
                if let value = fields.value(at: field) {
                    data.setValue(value, at: field)
                } else {
                    data.removeValue(at: field)
                }
            }
        } else {
            data = fields
        }
        for (field, transform) in transforms {
            let value = transform.applyAsFirestore(to: data.value(at: field), commitTime: commitTime)
            data.setValue(value, at: field)
        }
        return data
    }

    private static func missingMaskField(_ field: FieldPath) -> DocumentsError {
        DocumentsError(
            .invalidValue, "field '\(field.canonicalString)' is listed in mergeFields but missing from the data",
            hint: "give a value for every merged field")
    }

    /// With `mergeFields`, a delete must sit exactly at a merged path: one outside the mask or inside a merged map
    /// would otherwise be dropped without a word.
    private static func checkDeletes(in fields: [String: FieldValue], mask: [FieldPath]) throws {
        for (name, value) in fields {
            for (path, transform) in try value.flatten(at: try FieldPath(segments: [name])).transforms
            where transform == .delete && !mask.contains(path) {
                let parent = mask.first { path.segments.starts(with: $0.segments) }
                throw DocumentsError(
                    .invalidValue,
                    parent.map {
                        "delete on field '\(path.canonicalString)' lies inside merged field '\($0.canonicalString)'"
                    } ?? "delete on field '\(path.canonicalString)', which is not among the merged fields",
                    hint: "list '\(path.canonicalString)' itself in the merged fields")
            }
        }
    }

    private static func mergeDeep(
        _ fields: [String: FieldValue], prefix: [String], into data: inout DocumentData,
        transforms: inout [(FieldPath, FieldTransform)]
    ) throws {
        for (name, value) in fields {
            let field = try FieldPath(segments: prefix + [name])
            // Merging a non-empty map merges its fields (`h.g`), keeping the map's others; parents are created only
            // by what is set, so a nested delete under a missing parent changes nothing.
            let nested: [String: FieldValue]? =
                switch value.kind {
                case .map(let map) where !map.isEmpty: map
                case .value(.map(let map)) where !map.isEmpty: FieldValue.fields(map)
                default: nil
                }
            if let nested {
                try mergeDeep(nested, prefix: prefix + [name], into: &data, transforms: &transforms)
                continue
            }
            let flat = try value.flatten(at: field)
            if let literal = flat.literal { data.setValue(literal, at: field) }
            transforms.append(contentsOf: flat.transforms)
        }
    }

    private static func apply(
        _ transforms: [(FieldPath, FieldTransform)], to data: inout DocumentData, commitTime: Int64
    )
        throws
    {
        for (field, transform) in transforms {
            let current = data.value(at: field)
            if let value = try transform.apply(to: current, field: field, commitTime: commitTime) {
                data.setValue(value, at: field)
            } else {
                data.removeValue(at: field)
            }
        }
    }
}
