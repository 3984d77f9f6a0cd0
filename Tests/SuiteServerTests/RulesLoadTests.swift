import Foundation
import SuiteCore
import SuiteServer
import Testing

/// A rules file outside the supported subset is refused when it is loaded, naming the line and column.
@Suite("Firestore's rules language: what is refused at start")
struct RulesLoadTests {
    static func wrap(_ body: String) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{userId} {
              \(body)
            }
          }
        }
        """
    }

    static func refusal(_ source: String) -> ServerError? {
        do {
            _ = try FirestoreRules(source: source, fileName: "test.rules")
            return nil
        } catch let error as ServerError {
            return error
        } catch {
            return nil
        }
    }

    /// Each body with the text the error must point at, part of its message, and a word of its hint.
    @Test(
        "refused with the line, the column and a hint",
        arguments: [
            ("allow read: if reqest.auth != null;", "reqest", "'reqest' is not defined", "request"),
            ("allow read: if isOwner();", "isOwner", "no function isOwner()", nil),
            ("allow read: if request.auth.uid.size2() > 0;", ".size2", "no method size2()", "size"),
            ("allow raed: if true;", "raed", "'raed' is not an operation", "read"),
            ("allow read: if request.auth != null and true;", "and", "expected", "&&"),
            ("allow read: if 'open;", "'open", "not closed", nil),
            ("allow read: if request.auth is strng;", "strng", "'strng' is not a type", "string"),
            ("allow read: if 99999999999999999999 > 1;", "999", "too large", nil),
            ("function f() { return f(); } allow read: if f();", "function", "calls itself", nil),
            ("allow read: if get(/databases/$(database)/documents/a/b, 1);", "get", "takes 1", nil),
        ] as [(String, String, String, String?)])
    func refused(_ body: String, _ token: String, _ message: String, _ hint: String?) throws {
        let error = try #require(Self.refusal(Self.wrap(body)))
        // The body is line 5, indented by 6.
        let column = 7 + body.distance(from: body.startIndex, to: try #require(body.range(of: token)).lowerBound)
        #expect(error.message.hasPrefix("test.rules:5:\(column): "), "\(error.message)")
        #expect(error.message.contains(message), "\(error.message)")
        if let hint { #expect(error.hint?.contains(hint) == true, "\(error.hint ?? "no hint")") }
    }

    @Test("other services, a missing service and misplaced ** are refused")
    func structure() throws {
        let storage = try #require(Self.refusal("service firebase.storage { match /b/{bucket}/o { } }"))
        #expect(storage.message.contains("cloud.firestore"))
        #expect(Self.refusal("match /a/{b} { allow read; }")?.message.contains("service cloud.firestore") == true)
        let version1 = """
            service cloud.firestore { match /databases/{database}/documents { match /{path=**}/posts/{post} {
              allow read; } } }
            """
        #expect(Self.refusal(version1)?.message.contains("rules_version") == true)
        #expect(Self.refusal("rules_version = '2'; service cloud.firestore { match /a/{b} { allow read; } } }") != nil)
    }

    @Test("the supported subset loads: functions with let, nested matches, every operation word")
    func accepted() throws {
        let source = """
            rules_version = '2';
            // A comment,
            /* and a block
               comment */
            service cloud.firestore {
              function signedIn() { return request.auth != null; }
              match /databases/{database}/documents {
                function owns(uid) {
                  let me = request.auth.uid;
                  return signedIn() && me == uid;
                }
                match /users/{userId} {
                  allow get, list: if owns(userId);
                  allow create, update, delete: if owns(userId) && request.time < timestamp.date(2100, 1, 1);
                  match /{rest=**} {
                    allow read, write: if owns(userId) && rest.size() < 10;
                  }
                }
                match /public/{doc} { allow read; }
              }
            }
            """
        let rules = try FirestoreRules(source: source)
        #expect(rules.fileName == "firestore.rules")
    }
}

/// A write is judged without reading the document it replaces only when that cannot change the answer.
@Suite("Firestore's rules language: when a write must read the stored document")
struct RulesStoredDocumentTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function unchangedName() { return resource == null || resource.data.name == request.resource.data.name; }
            match /blind/{id} { allow write: if request.resource.data.n is int; }
            match /split/{id} { allow create: if true; allow update: if request.resource.data.n > 0; }
            match /stored/{id} { allow write: if unchangedName(); }
            match /method/{id} { allow write: if request.method == 'create'; }
            match /deleteOnly/{id} { allow delete: if resource.data.owner == request.auth.uid; }
            match /reads/{id} { allow read: if resource.data.public == true; }
          }
        }
        """

    @Test(
        "which paths need the stored document",
        arguments: [
            ("blind/a", false), ("split/a", true), ("stored/a", true), ("method/a", true), ("deleteOnly/a", true),
            ("reads/a", false), ("nowhere/a", false),
        ])
    func needs(_ path: String, _ expected: Bool) throws {
        let rules = try FirestoreRules(source: Self.rules)
        #expect(rules.needsStoredDocument(path) == expected)
    }
}
