import Documents
import Testing

@Suite("Field paths")
struct FieldPathTests {
    @Test func dottedAndQuoted() throws {
        #expect(try FieldPath("points").segments == ["points"])
        #expect(try FieldPath("address.city").segments == ["address", "city"])
        #expect(try FieldPath("`a.b`.c").segments == ["a.b", "c"])
        #expect(try FieldPath("x.`we\\`ird\\\\`").segments == ["x", "we`ird\\"])
        #expect(try FieldPath("__name__") == FieldPath.documentID)
        #expect(FieldPath.documentID.isDocumentID)
    }

    @Test(arguments: ["", ".", "a.", ".a", "a..b", "`a", "`a`b", "a`b`", "``", "`a\\"])
    func invalid(_ text: String) {
        #expect {
            try FieldPath(text)
        } throws: { error in
            guard let error = error as? DocumentsError else { return false }
            return error.code == .invalidField && error.hint != nil
        }
    }

    @Test func canonicalStringRoundTrips() throws {
        let cases: [[String]] = [["a"], ["a", "b"], ["a.b", "c"], ["zip-code"], ["1st"], ["we`ird\\"], ["é", "_x9"]]
        for segments in cases {
            let path = try FieldPath(segments: segments)
            #expect(try FieldPath(path.canonicalString) == path)
        }
        #expect(try FieldPath(segments: ["address", "zip-code"]).canonicalString == "address.`zip-code`")
        #expect(try FieldPath(segments: ["a", "b"]).description == "a.b")
    }

    @Test func segmentsInitializerValidates() {
        #expect(throws: DocumentsError.self) { try FieldPath(segments: []) }
        #expect(throws: DocumentsError.self) { try FieldPath(segments: ["a", ""]) }
    }

    @Test func ordering() throws {
        #expect(try FieldPath("a") < FieldPath("a.b"))
        #expect(try FieldPath("a.b") < FieldPath("a0"))
        #expect(try FieldPath("Z") < FieldPath("a"))
    }

    @Test func documentDataHelpers() throws {
        var data: DocumentData = ["name": .string("Ann"), "address": .map(["city": .string("Paris")])]
        #expect(data.value(at: try FieldPath("address.city")) == .string("Paris"))
        #expect(data.value(at: try FieldPath("address.zip")) == nil)
        #expect(data.value(at: try FieldPath("name.first")) == nil)

        data.setValue(.int(75001), at: try FieldPath("address.zip"))
        #expect(data["address"] == .map(["city": .string("Paris"), "zip": .int(75001)]))

        data.setValue(.bool(true), at: try FieldPath("a.b.c"))
        #expect(data["a"] == .map(["b": .map(["c": .bool(true)])]))

        // A non-map intermediate is replaced by a map.
        data.setValue(.string("x"), at: try FieldPath("name.first"))
        #expect(data["name"] == .map(["first": .string("x")]))

        #expect(data.removeValue(at: try FieldPath("address.city")) == .string("Paris"))
        #expect(data["address"] == .map(["zip": .int(75001)]))
        #expect(data.removeValue(at: try FieldPath("address.nothing")) == nil)
        #expect(data.removeValue(at: try FieldPath("missing.deep")) == nil)
        #expect(data.removeValue(at: try FieldPath("a")) != nil)
        #expect(data["a"] == nil)
    }
}
