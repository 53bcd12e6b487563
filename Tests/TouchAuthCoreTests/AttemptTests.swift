// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct AttemptTests {
    @Test func aMatchSucceedsAtOnce() {
        var attempt = Attempt(maxTries: 3)
        #expect(attempt.record(.match) == .finish(.success, nil))
    }

    @Test func threeWrongFingersEndTheAttempt() {
        var attempt = Attempt(maxTries: 3)
        #expect(attempt.record(.noMatch) == .scanAgain(.notRecognized))
        #expect(attempt.record(.noMatch) == .scanAgain(.notRecognized))
        #expect(attempt.record(.noMatch) == .finish(.authenticationFailed, .tooManyTries))
        #expect(attempt.strikes == 3)
    }

    @Test(arguments: RetryHint.allCases)
    func retryHintsAreNotStrikes(hint: RetryHint) {
        var attempt = Attempt(maxTries: 1)
        for _ in 0..<10 { #expect(attempt.record(.retry(hint)) == .scanAgain(.retry(hint))) }
        #expect(attempt.strikes == 0)
        #expect(attempt.record(.match) == .finish(.success, nil))
    }

    @Test func aMatchAfterStrikesStillSucceeds() {
        var attempt = Attempt(maxTries: 3)
        _ = attempt.record(.noMatch)
        _ = attempt.record(.noMatch)
        #expect(attempt.record(.match) == .finish(.success, nil))
    }

    @Test func timeoutAndSensorFailureFallBackToThePassword() {
        var attempt = Attempt(maxTries: 3)
        #expect(attempt.record(.timedOut) == .finish(.systemCancel, .timedOut))
        var other = Attempt(maxTries: 3)
        #expect(other.record(.failed) == .finish(.systemCancel, .sensorFailed))
    }

    @Test(arguments: 1...10)
    func maxTriesIsHonoured(maxTries: Int) {
        var attempt = Attempt(maxTries: maxTries)
        for _ in 1..<maxTries { #expect(attempt.record(.noMatch) == .scanAgain(.notRecognized)) }
        #expect(attempt.record(.noMatch) == .finish(.authenticationFailed, .tooManyTries))
    }
}

@Suite struct FingerAndUserTests {
    @Test func fingersUseFprintdNamesAndHexDigits() {
        #expect(Finger(name: "right-index-finger") == .rightIndex)
        #expect(Finger.rightIndex.fileName == "7")
        #expect(Finger.rightLittle.fileName == "a")
        #expect(Finger(fileName: "a") == .rightLittle)
        #expect(Finger(fileName: "A") == nil)
        #expect(Finger(fileName: "0") == nil)
        #expect(Finger(fileName: "b") == nil)
        #expect(Finger(fileName: "77") == nil)
        #expect(Finger(name: "right-index") == nil)
        #expect(Finger.leftThumb.spokenName == "left thumb")
    }

    @Test(arguments: ["alice", "bob.smith", "user-1", "jürgen", String(repeating: "a", count: 256)])
    func validNames(name: String) { #expect(UserName(name) != nil) }

    @Test(arguments: ["", ".", "..", "../root", "a/b", "a\nb", "tab\tname", "del\u{7f}", String(repeating: "a", count: 257)])
    func invalidNames(name: String) { #expect(UserName(name) == nil) }
}
