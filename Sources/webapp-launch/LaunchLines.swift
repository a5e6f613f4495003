import ArgumentParser
import Foundation
import WebAppLaunch

/// How `mint` prints each launch.
enum LaunchOutput: String, ExpressibleByArgument, CaseIterable {
    /// The launch URL alone: what a browser, curl or wrk opens.
    case url
    /// A JSON object per line with the URL, the token and the user's claims, so a test can
    /// search a server's logs for every value of the run.
    case json
}

/// The lines `mint` prints, buffered and written in large chunks: a benchmark mints a
/// million launches, and a write per line would cost more than the minting.
struct LaunchLines {
    let output: LaunchOutput
    // Bytes not yet written to standard output.
    private var buffer: [UInt8] = []
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Flushes once this many bytes are buffered.
    private static let chunk = 1 << 20

    init(output: LaunchOutput) {
        self.output = output
        buffer.reserveCapacity(Self.chunk + 4_096)
    }

    /// One launch's line.
    mutating func append(url: String, user: LaunchUser) {
        switch output {
        case .url:
            buffer.append(contentsOf: url.utf8)
        case .json:
            let token = url.range(of: "launch=").map { String(url[$0.upperBound...]) } ?? ""
            let line = Line(
                url: url, token: token, access_token: user.accessToken,
                firstname: user.firstName, lastname: user.lastName, kvnumber: user.kvnumber
            )
            // Encoding a struct of strings cannot fail.
            buffer.append(contentsOf: (try? encoder.encode(line)) ?? Data())
        }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.chunk { flush() }
    }

    /// Writes what is buffered.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// The JSON form of a launch: the URL, its token, and the claims it carries, under the
    /// names of the launch URL's parameters.
    private struct Line: Encodable {
        let url: String
        let token: String
        let access_token: String
        let firstname: String
        let lastname: String
        let kvnumber: String
    }
}
