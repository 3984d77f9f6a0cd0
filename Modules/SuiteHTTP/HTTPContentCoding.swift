/// A content coding of HTTP bodies that ``HTTPCompression`` encodes and decodes (RFC 9110 §8.4.1): what
/// `Content-Encoding` names and `Accept-Encoding` asks for.
///
/// ```swift
/// let coding = HTTPContentCoding.preferred(acceptEncoding: "deflate;q=0.5, gzip")   // .gzip
/// let body = try HTTPCompression.encode(json, as: .gzip)   // sent with Content-Encoding: gzip
/// ```
public enum HTTPContentCoding: String, Sendable, Hashable, CaseIterable {
    /// gzip (RFC 1952); `x-gzip` is read as gzip too.
    case gzip
    /// HTTP's "deflate": the zlib format (RFC 1950). A raw deflate stream (RFC 1951), which some clients send under
    /// this name, is decoded as well.
    case deflate

    /// The coding a `Content-Encoding` token names (any case; `x-gzip` is gzip), or `nil` for any other token
    /// (`identity` included).
    public init?(token: some StringProtocol) {
        switch token.trimmingWhitespace.lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }

    /// The coding to answer with for the request header `Accept-Encoding: acceptEncoding`, or `nil` for none
    /// (identity): no header, or one that accepts neither gzip nor deflate.
    ///
    /// q-values count (`gzip;q=0` refuses gzip; the higher q wins, gzip on a tie); a coding not named is accepted
    /// only through `*` with a q above 0. `identity` is always acceptable here: a caller that refuses it
    /// (`identity;q=0`) and accepts no coding still gets identity, as RFC 9110 allows.
    public static func preferred(acceptEncoding: String?) -> HTTPContentCoding? {
        guard let acceptEncoding else { return nil }
        var weights: [String: Double] = [:]
        for element in acceptEncoding.split(separator: ",") {
            var parameters = element.split(separator: ";").makeIterator()
            guard let name = parameters.next()?.trimmingWhitespace.lowercased(), !name.isEmpty else { continue }
            var weight = 1.0
            while let parameter = parameters.next() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingWhitespace.lowercased() == "q" else { continue }
                // An unreadable q-value is 0: refusing is the safe reading of a header that cannot be read.
                weight = Double(pair[1].trimmingWhitespace).map { min(max($0, 0), 1) } ?? 0
            }
            let key = name == "x-gzip" ? "gzip" : name
            weights[key] = max(weights[key] ?? 0, weight)
        }
        var best: (coding: HTTPContentCoding, weight: Double)?
        for coding in allCases {
            let weight = weights[coding.rawValue] ?? weights["*"] ?? 0
            if weight > 0, weight > (best?.weight ?? 0) { best = (coding, weight) }
        }
        return best?.coding
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingWhitespace: String {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
