// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

/// The prompt's first lines and its later ones (PromptLines): every layout, the heading, the
/// one-line hint's countdown. The real clients are tests/e2e/terminal.sh, clients_lightdm.sh,
/// clients_lockers.sh (xsecurelock) and clients_polkit.sh.
@Suite struct PromptLinesTests {
    func lines(
        fallback: Request.Fallback = .noKey, oneMessage: Bool = false, approval: Approval? = nil,
        columns: Int? = nil, title: String = "Enter Password", reason: String = "", timeout: Int = 30
    ) -> PromptLines {
        var config = Config()
        config.fallbackTitle = title
        config.reason = reason
        config.timeout = timeout
        let request = Request(
            user: "alice", service: "sudo", fallback: fallback, columns: columns, oneMessage: oneMessage,
            approval: approval)
        return PromptLines(request, config)
    }

    let place = Message.placeFinger

    @Test(arguments: [(Request.Fallback.enter, false), (.enter, true), (.noKey, false), (.noKey, true)])
    func noTitleShowsTheFingersLineAlone(_ fallback: Request.Fallback, _ oneMessage: Bool) {
        let prompt = lines(fallback: fallback, oneMessage: oneMessage, title: "")
        #expect(prompt.layout == .promptOnly)
        #expect(prompt.opening(place, elapsedMilliseconds: 0) == [place.replyLine])
        #expect(prompt.shown(.notRecognized, elapsedMilliseconds: 0) == Message.notRecognized.replyLine)
    }

    @Test(arguments: [false, true])
    func aPolkitDialogsFieldBesideThePromptNeedsNoHint(_ oneMessage: Bool) {
        let prompt = lines(fallback: .field, oneMessage: oneMessage)
        #expect(prompt.layout == .promptOnly)
        #expect(prompt.opening(place, elapsedMilliseconds: 0) == [place.replyLine])
        #expect(prompt.shown(.notRecognized, elapsedMilliseconds: 5000) == .error("Not recognized, try again"))
    }

    @Test(arguments: [false, true])
    func aShimThatTakesEnterHasTheKeysHintAfterTheFingersLine(_ oneMessage: Bool) {
        let prompt = lines(fallback: .enter, oneMessage: oneMessage)
        #expect(prompt.layout == .keyHintAfter)
        #expect(prompt.opening(place, elapsedMilliseconds: 0)
            == [.info("Place your finger on the fingerprint reader"), .info("[Enter Password] press Enter, or type your password")])
        #expect(prompt.shown(.notRecognized, elapsedMilliseconds: 5000) == .error("Not recognized, try again"))
    }

    @Test func noKeyPutsTheHintFirstWithTheWholeTimeout() {
        let prompt = lines(timeout: 12)
        #expect(prompt.layout == .hintFirst)
        #expect(prompt.opening(place, elapsedMilliseconds: 3000)
            == [.info("[Enter Password] after 12 s"), .info("Place your finger on the fingerprint reader")])
        #expect(prompt.shown(.notRecognized, elapsedMilliseconds: 5000) == .error("Not recognized, try again"))
    }

    @Test func aClientShowingOnlyTheLatestMessageGetsBothWaysInOneLineWithTheSecondsLeft() {
        let prompt = lines(oneMessage: true, timeout: 30)
        #expect(prompt.layout == .oneLine)
        #expect(prompt.opening(place, elapsedMilliseconds: 400)
            == [.info("Place your finger on the fingerprint reader \u{b7} [Enter Password] after 30 s")])
        // Each line that asks for another scan says it again, counting down; an error stays one.
        #expect(prompt.shown(.notRecognized, elapsedMilliseconds: 7999)
            == .error("Not recognized, try again \u{b7} [Enter Password] after 23 s"))
        #expect(prompt.shown(.retry(.tooShort), elapsedMilliseconds: 10000)
            == .info("Swipe was too short, try again \u{b7} [Enter Password] after 20 s"))
        // Never "after 0 s" (nor less) while the prompt still waits.
        #expect(prompt.shown(.placeFinger, elapsedMilliseconds: 29999) == .info("Place your finger on the fingerprint reader \u{b7} [Enter Password] after 1 s"))
        #expect(prompt.shown(.placeFinger, elapsedMilliseconds: 45000) == .info("Place your finger on the fingerprint reader \u{b7} [Enter Password] after 1 s"))
    }

    @Test(arguments: [Message.tooManyTries, .timedOut, .sensorFailed])
    func aLastLineIsNotJoinedToTheHint(_ message: Message) {
        #expect(lines(oneMessage: true).shown(message, elapsedMilliseconds: 1000) == message.replyLine)
    }

    @Test func theFingerNamedInTheOneLine() {
        let named = Message.placeNamedFinger(.rightIndex)
        #expect(lines(oneMessage: true).opening(named, elapsedMilliseconds: 0)
            == [.info("\(named.text) \u{b7} [Enter Password] after 30 s")])
    }

    @Test func theApprovalComesFirstFittedToTheColumnsAndBeforeTheReason() throws {
        let approval = try #require(Approval(program: .sudo, kind: .command, user: "root", text: "apt upgrade"))
        let prompt = lines(fallback: .enter, approval: approval, columns: 40, reason: "a reason")
        let heading = Approval.fitted("sudo wants to run as root: apt upgrade", columns: 40)
        #expect(prompt.heading == heading)
        #expect(prompt.opening(place, elapsedMilliseconds: 0)
            == [.info(heading), place.replyLine, Message.fallbackKeyHint(title: "Enter Password").replyLine])
    }

    @Test func withoutAnApprovalTheReasonComesFirstAndWithoutEitherNothing() {
        #expect(lines(reason: "Unlock the vault").opening(place, elapsedMilliseconds: 0).first == .info("Unlock the vault"))
        #expect(lines(title: "", reason: "Unlock the vault").opening(place, elapsedMilliseconds: 0)
            == [.info("Unlock the vault"), place.replyLine])
        #expect(lines().heading == nil)
        #expect(lines(title: "").opening(place, elapsedMilliseconds: 0) == [place.replyLine])
    }
}
