import Observation

extension TestSupport {
    /// Waits until `condition` holds: checks it, and while it does not hold, waits for a change to one of the
    /// `@Observable` properties it read (`withObservationTracking`'s `onChange`), then checks again. Never polls,
    /// never sleeps. Checking and tracking happen on the main actor with no suspension between them, so no change made
    /// there is missed; bound the wait with the test's `.timeLimit`.
    ///
    /// ```swift
    /// let user = LiveDocument(try store.document("users/u1"))
    /// try await store.document("users/u1").setData(["points": 1])
    /// await TestSupport.waitUntil { user.data?["points"] == .int(1) }
    /// ```
    @MainActor
    public static func waitUntil(_ condition: @MainActor () -> Bool) async {
        while !condition() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                withObservationTracking {
                    _ = condition()
                } onChange: {
                    continuation.resume()
                }
            }
        }
    }
}
