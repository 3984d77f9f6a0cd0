import Testing

/// Every end-to-end suite is nested here and runs serialized: a test waiting on a `suite` process blocks a thread of
/// Swift's cooperative pool (`SuiteRunner.run` is synchronous), and two such tests at once starve the pool of a 2-core
/// machine — the other tests' awaits then stall until a plugin call times out.
@Suite(.serialized) struct RealBinary {}
