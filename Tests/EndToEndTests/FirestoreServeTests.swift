import Foundation
import SuiteTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// `suite serve --firestore-port` as a user starts it: either door failing to start ends the command with the
    /// error and a hint (the other door stops too), and misuse of the Firestore flags is refused.
    @Suite("suite serve with the Firestore protocol (real binary)")
    struct FirestoreServeTests {
        /// A listening socket holding a loopback port.
        final class HeldPort {
            let descriptor: Int32
            let port: Int

            init() throws {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                self.descriptor = descriptor
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                address.sin_port = 0
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let bound = withUnsafeMutablePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                        bind(descriptor, generic, length) == 0 && listen(descriptor, 1) == 0
                            && getsockname(descriptor, generic, &length) == 0
                    }
                }
                guard bound else {
                    close(descriptor)
                    throw RunnerFailure("could not hold a loopback port")
                }
                port = Int(UInt16(bigEndian: address.sin_port))
            }

            deinit { close(descriptor) }
        }

        @Test func aFirestorePortInUseEndsServeWithTheErrorAndAHint() throws {
            let held = try HeldPort()
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("fs-serve"))
            let result = try suite.run(["serve", "--port", "0", "--firestore-port", "\(held.port)"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot listen for the Firestore protocol on 127.0.0.1:\(held.port)"))
            #expect(result.stderr.contains("hint: the port may be in use"))
        }

        @Test func anHTTPPortInUseAlsoStopsTheFirestoreProtocol() throws {
            let held = try HeldPort()
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("fs-serve"))
            let result = try suite.run(["serve", "--port", "\(held.port)", "--firestore-port", "0"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(held.port)"))
        }

        @Test func theOwnerTokenIsRefusedOffLoopbackAndWithoutTheProtocol() throws {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("fs-serve"))
            let alone = try suite.run(["serve", "--accept-owner-token"])
            #expect(alone.status == 1)
            #expect(alone.stderr.contains("--accept-owner-token needs the Firestore protocol"))
            try "server:\n  firestore: {port: 0, host: 0.0.0.0, accept-owner-token: true}\n".write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let open = try suite.run(["serve", "--port", "0"])
            #expect(open.status == 1)
            #expect(open.stderr.contains("refused on 0.0.0.0"))
        }

        @Test func aMisspelledFirestoreSettingNamesTheClosestOne() throws {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("fs-serve"))
            try "server:\n  firestore:\n    port: 0\n    jwt: {issuer: x, audience: y, keys: [{algoritm: RS256}]}\n"
                .write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let result = try suite.run(["serve", "--port", "0"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("server.firestore.jwt.keys[0].algoritm"))
            #expect(result.stderr.contains("did you mean 'algorithm'?"))
        }

        @Test func statusShowsTheFirestoreProtocol() throws {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("fs-serve"))
            try "server:\n  firestore: {port: 8081}\n".write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let result = try suite.run(["status"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("127.0.0.1:8081 (gRPC)"))
        }
    }
}
