@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import SuiteCore
import SuitePluginKit
import Testing

@Suite("The documents kind's error mapping")
struct DocumentsEngineKindTests {
    @Test("a DocumentsError travels as an envelope with its code and comes back as the same DocumentsError")
    func envelopeRoundTrip() throws {
        let sent = DocumentsError(.preconditionFailed, "users/u1 is at version 3", hint: "re-read it")
        let failure = DocumentsEngineKind.failure(for: sent)
        #expect(failure == PluginFailure(code: "preconditionFailed", "users/u1 is at version 3", hint: "re-read it"))
        let received = try #require(DocumentsEngineKind.error(for: failure) as? DocumentsError)
        #expect(received.code == .preconditionFailed)
        #expect(received.message == sent.message)
        #expect(received.hint == sent.hint)
    }

    @Test("another error thrown in a plugin becomes a storage failure with its description")
    func otherErrorsAreStorage() {
        let failure = DocumentsEngineKind.failure(for: SuiteError(.io, "disk on fire"))
        #expect(failure.code == "storage")
        #expect(failure.message.contains("disk on fire"))
    }

    @Test("a timed-out call is a storage DocumentsError whose underlying error is the timeout, hint kept")
    func timeoutIsStorage() throws {
        let timeout = PluginError(
            .timedOut, "plugin P (/p.so) engine 'e' did not complete 'commit' within 30 s",
            hint: "raise plugin-timeout",
            path: "/p.so")
        let error = try #require(DocumentsEngineKind.error(forCallFailure: timeout) as? DocumentsError)
        #expect(error.code == .storage)
        #expect(error.message.contains("did not complete 'commit'"))
        #expect(error.hint == "raise plugin-timeout")
        #expect((error.underlying as? PluginError)?.code == .timedOut)
    }

    @Test("the documents request type serves every documents operation, by the ABI's names")
    func operationNames() {
        #expect(DocumentEngineRequest.operationNames == DocumentEngineOperation.allCases.map(\.rawValue))
        #expect(DocumentEngineRequest.lastSequence.operationName == "lastSequence")
        #expect(DocumentsEngineKind.name == EngineKind.documents)
    }
}
