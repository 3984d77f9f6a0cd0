import SuiteCore
import Testing

/// SuiteCore's README example (compiled as written in Tests/ReadmeSnippetTests/SuiteCoreReadme.swift),
/// and run.
@Test("the SuiteCore README example compiles and delivers by type, by name and to a stream")
func suiteCoreReadmeSnippet() async throws {
    struct PointsRedeemed: BusEvent {
        var name: String { "loyalty.points-redeemed" }
        var payload: Payload
        struct Payload: Codable, Sendable { var user: String; var points: Int }
    }

    let bus = EventBus()
    let loyalty = bus.publisher(source: "loyalty")  // stamps source and its own sequence on every event
    let token = bus.subscribe(to: PointsRedeemed.self) { event, envelope in
        print(event.payload.points, envelope.source, envelope.sequence)
    }

    // Another module listens by name, into its own Codable type, without importing the publisher:
    struct Redeemed: Codable, Sendable { var points: Int }
    let byName = bus.subscribe(named: "loyalty.points-redeemed", as: Redeemed.self) { redeemed, _ in print(redeemed) }

    let stream = bus.stream(of: PointsRedeemed.self, bufferSize: 256)  // AsyncSequence; stream.droppedCount
    loyalty.publish(PointsRedeemed(payload: .init(user: "u1", points: 10)))
    token.cancel()
    byName.cancel()

    stream.cancel()
    var points: [Int] = []
    for await event in stream { points.append(event.payload.points) }
    #expect(points == [10])
    #expect(loyalty.publishedCount == 1)
}
