// Mints many launches at once for the load and fault scripts (one CLI process per launch is
// slow). Every launch gets a distinct user (access token, names, KVNR), so a log check can
// look for each of them.
//
// Usage: MintBatch KEYRING REGISTRY APP_ID COUNT [LIFETIME] [PREFIX]
// Prints one JSON object per line: {"url","token","access_token","firstname","lastname","kvnumber"}.
import Foundation
import WebAppLaunch
import WebAppRegistry

let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: MintBatch KEYRING REGISTRY APP_ID COUNT [LIFETIME] [PREFIX]\n".utf8))
    exit(2)
}
let lifetime = arguments.count > 5 ? UInt64(arguments[5]) ?? 300 : 300
let prefix = arguments.count > 6 ? arguments[6] : "L"
let signer = try LaunchSigner(keyring: try Keyring(contentsOfFile: arguments[1]), registry: try Registry(contentsOfFile: arguments[2]))

/// A valid KVNR for a serial number (letter + 8 digits + check digit, SPEC.md §10.1).
func kvnr(_ serial: Int) -> String {
    let letter = UInt8(ascii: "A") + UInt8(serial % 26)
    let digits = String(format: "%08d", (serial * 7919 + 12345) % 100_000_000)
    let position = Int(letter - 64)
    let all = [position / 10, position % 10] + digits.map { Int(String($0))! }
    var sum = 0
    for (index, digit) in all.enumerated() {
        let product = digit * (index % 2 == 0 ? 1 : 2)
        sum += product / 10 + product % 10
    }
    return String(UnicodeScalar(letter)) + digits + String(sum % 10)
}

let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
var output = ""
for index in 0..<count {
    let user = LaunchUser(
        accessToken: "at.\(prefix).\(run).\(index).\(UUID().uuidString)",
        firstName: "Vorname\(prefix)\(run)x\(index)",
        lastName: "Nachname\(prefix)\(run)x\(index)",
        kvnumber: kvnr(index + Int(UInt16.random(in: 0...9999)) * 1000))
    let url = try signer.launchURL(for: arguments[3], user: user, lifetime: lifetime)
    let token = String(url[url.range(of: "launch=")!.upperBound...])
    let object: [String: String] = ["url": url, "token": token, "access_token": user.accessToken,
                                    "firstname": user.firstName, "lastname": user.lastName, "kvnumber": user.kvnumber]
    output += String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self) + "\n"
}
FileHandle.standardOutput.write(Data(output.utf8))
