import AnalyticsTestSupport
import Foundation
import SuiteTestSupport
import Synchronization

final class Counter: Sendable {
    private let state = Mutex(0)
    var value: Int { state.withLock { $0 } }
    func add(_ amount: Int) { state.withLock { $0 += amount } }
}

final class Collected<Element: Sendable>: Sendable {
    private let state = Mutex<[Element]>([])
    var values: [Element] { state.withLock { $0 } }
    func append(_ element: Element) { state.withLock { $0.append(element) } }
}

enum SuiteTestSupportPath {
    static func file(_ name: String) -> String { TestSupport.temporaryFile(name) }
}
