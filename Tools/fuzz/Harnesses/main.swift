// `SuiteFuzz <harness> [libFuzzer flags] [corpus dirs or files]`: one executable holding every harness. Built by
// `make fuzz` with address sanitizer and libFuzzer's coverage (SUITE_FUZZ defined), it hands the rest of the command
// line to libFuzzer's driver. Built plainly (`swift build`), it replays the files named instead: each file's bytes go
// through the harness once, which is how a finding is reproduced under a debugger.
import Foundation

#if SUITE_FUZZ
    /// libFuzzer's entry point in `libclang_rt.fuzzer_no_main` (linked by `make fuzz`).
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif

/// The harness this process runs; set once before the driver starts.
nonisolated(unsafe) var selected: FuzzHarness?

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "write-seeds" {
    do { try PluginWireSeeds.write(to: arguments[2]) } catch {
        FileHandle.standardError.write(Data("cannot write the seeds: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard arguments.count >= 2, let harness = FuzzHarnesses.all.first(where: { $0.name == arguments[1] }) else {
    let names = FuzzHarnesses.all.map(\.name).joined(separator: " ")
    FileHandle.standardError.write(
        Data("usage: SuiteFuzz <harness> [libFuzzer flags] [corpus…]\nharnesses: \(names)\n".utf8))
    exit(arguments.count == 2 && arguments[1] == "list" ? 0 : 2)
}
selected = harness

#if SUITE_FUZZ
    // libFuzzer sees the command line without the harness name.
    var driverArguments: [UnsafeMutablePointer<CChar>?] = [strdup(arguments[0])]
    driverArguments += arguments.dropFirst(2).map { strdup($0) }
    driverArguments.append(nil)
    var argc = CInt(driverArguments.count - 1)
    let exitCode = driverArguments.withUnsafeMutableBufferPointer { buffer -> CInt in
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selected?.run(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
    }
    exit(exitCode)
#else
    for file in arguments.dropFirst(2) where !file.hasPrefix("-") {
        guard let bytes = FileManager.default.contents(atPath: file) else {
            FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
            exit(1)
        }
        bytes.withUnsafeBytes { harness.run($0) }
        print("ran \(file) (\(bytes.count) bytes)")
    }
#endif
