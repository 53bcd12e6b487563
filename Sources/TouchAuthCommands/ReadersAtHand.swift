// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import TouchAuthCore
import TouchAuthPlatform

/// What `status` and `doctor` say of the readers (docs/POLICY.md#the-lid-and-the-readers-at-hand): the lid, and for each reader
/// where it sits, the user's prints on it, and whether a prompt would use it now and why not.
enum ReadersAtHand {
    struct Entry {
        let label: String
        let placement: Readers.Placement
        let fingers: [String]
        let used: Bool
        /// One line for people: `virtual_device/0: external (USB port removable); prints: ...; used now`.
        let text: String
    }

    /// The lid's state and every reader (none, and the reason, when prints cannot be read).
    static func survey(_ config: Config, user: UserName, devices: [Device]) -> (lidClosed: Bool, readers: [Entry], problem: String?) {
        let lidClosed = Readers.lidClosed(config.lidDir)
        let readers: [Readers.Reader]
        do throws(CommandError) {
            readers = try Readers.survey(
                devices, user: user, store: PrintStore(root: config.printDir), lidClosed: lidClosed, sysfsDir: config.sysfsDir)
        } catch {
            return (lidClosed, [], error.description)
        }
        return (lidClosed, readers.map { entry($0, lidClosed: lidClosed) }, nil)
    }

    private static func entry(_ reader: Readers.Reader, lidClosed: Bool) -> Entry {
        let label = Sensor.label(reader.device)
        let place: String
        switch reader.placement {
        case .removable: place = tr("external (USB port removable)")
        case .fixed, .unknown: place = tr("inside the lid (USB port \(reader.placement.rawValue))")
        case .notUSB: place = tr("inside the lid (not on USB)")
        }
        let fingers = reader.prints.map(\.0.name)
        let prints = fingers.isEmpty ? tr("none") : fingers.joined(separator: ", ")
        let use: String
        if reader.armed {
            use = tr("used now")
        } else if fingers.isEmpty {
            use = tr("not used: no prints")
        } else {
            use = tr("not used: the lid is closed")
        }
        return Entry(
            label: label, placement: reader.placement, fingers: fingers, used: reader.armed,
            text: tr("\(label): \(place); prints: \(prints); \(use)"))
    }

    static func lidLine(_ closed: Bool) -> String { closed ? tr("lid: closed") : tr("lid: open") }
}
