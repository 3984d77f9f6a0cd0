public import Foundation
public import SuiteCore

/// `work.status.changed`: a day moved in the status flow (docs/events.md). Analytics logs `work.` events by default.
public struct WorkStatusChanged: BusEvent {
    public var name: String { "work.status.changed" }
    public var payload: Payload

    /// What moved.
    public struct Payload: Codable, Sendable, Hashable {
        /// The user.
        public var uid: String
        /// The day (`yyyy-MM-dd`).
        public var date: String
        /// The action: start, break, resume, end, reopen.
        public var action: String
        /// The status before.
        public var from: String
        /// The status after.
        public var to: String
        /// When it took effect.
        public var at: Date
        /// Who made it (`cli`, `api`, a device).
        public var source: String
    }

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}

/// `work.day.changed`: a user's day document changed — a transition, an edit, an undo, an import, or a write by any
/// other writer of the store (Sync included). Views refresh the day from the month cache (docs/events.md).
public struct WorkDayChanged: BusEvent {
    public var name: String { "work.day.changed" }
    public var payload: Payload

    /// Which day.
    public struct Payload: Codable, Sendable, Hashable {
        /// The user.
        public var uid: String
        /// The day (`yyyy-MM-dd`).
        public var date: String
        /// Whether the day's document was deleted (an undo of the change that created it).
        public var deleted: Bool
    }

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}

/// `work.conflict`: a change of a day made on this device was replaced on the server by another device's later change
/// (two devices offline, the server's order decides) — both transitions named (docs/events.md).
public struct WorkConflict: BusEvent {
    public var name: String { "work.conflict" }
    public var payload: Payload

    /// The day and both sides.
    public struct Payload: Codable, Sendable, Hashable {
        /// The user.
        public var uid: String
        /// The day (`yyyy-MM-dd`).
        public var date: String
        /// This device's last change of the day, which lost (nil when it had deleted the day).
        public var ours: WorkHistoryEntry?
        /// The change the server kept.
        public var theirs: WorkHistoryEntry?
        /// The day's status after the conflict (the server's).
        public var status: String?
    }

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}
