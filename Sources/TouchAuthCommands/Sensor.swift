import Fingerprint
import Glibc
import TouchAuthCore

/// Chooses the sensor. libfprint reads its test drivers' sockets from the environment, which
/// the helper has emptied: only root-owned config (`virtual_device`, `virtual_device_storage`)
/// puts them back, and then only libfprint's virtual drivers are loaded.
enum Sensor {
    static func configure(_ config: Config) {
        var drivers: [String] = []
        if !config.virtualDevice.isEmpty {
            setenv("FP_VIRTUAL_DEVICE", config.virtualDevice, 1)
            drivers.append("virtual_device")
        }
        if !config.virtualDeviceStorage.isEmpty {
            setenv("FP_VIRTUAL_DEVICE_STORAGE", config.virtualDeviceStorage, 1)
            drivers.append("virtual_device_storage")
        }
        if !drivers.isEmpty {
            setenv("FP_DRIVERS_WHITELIST", drivers.joined(separator: ":"), 1)
            setenv("FP_DEVICE_EMULATION", "1", 1)  // deterministic device ids
        }
    }
}
