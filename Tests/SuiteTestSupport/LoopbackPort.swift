import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Free loopback ports for the throwaway servers tests start (redis-server, PostgreSQL, …).
public enum LoopbackPort {
    /// Why no port could be had.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A port nobody listens on right now: the kernel's choice for a socket bound to port 0 on 127.0.0.1.
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard bound, let port = localPort(of: fd) else {
            throw Failure(description: "cannot bind a loopback socket: errno \(errno)")
        }
        return port
    }

    /// Whether a server accepts connections on 127.0.0.1:`port`. A connection that the socket made to itself (Linux
    /// lets a loopback connect to a free port in the ephemeral range pick that same port as its own, and succeed) does
    /// not count.
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        return connected && localPort(of: fd).map { $0 != port } == true
    }

    /// 127.0.0.1:`port`.
    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    /// The local port of socket `fd`.
    private static func localPort(of fd: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        return named ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
