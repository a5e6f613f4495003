import Foundation
import WebAppLaunch
import WebAppRegistry

/// A fictional user of the development console (`keys/demo-users.json`).
public struct DemoUser: Sendable, Hashable, Codable {
    /// A short id used in the console's form.
    public let id: String
    /// The first name.
    public let firstName: String
    /// The last name.
    public let lastName: String
    /// A KVNR with a valid check digit.
    public let kvnumber: String
    /// A fake access token.
    public let accessToken: String

    /// Creates a demo user.
    public init(id: String, firstName: String, lastName: String, kvnumber: String, accessToken: String) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.kvnumber = kvnumber
        self.accessToken = accessToken
    }

    /// The user as the signer takes it.
    public var launchUser: LaunchUser {
        LaunchUser(accessToken: accessToken, firstName: firstName, lastName: lastName, kvnumber: kvnumber)
    }

    /// Loads the demo users file: `{"users": [{id, firstName, lastName, kvnumber, accessToken}]}`.
    /// - Parameter path: The file.
    /// - Returns: The users; an unreadable file is a configuration error.
    public static func load(contentsOfFile path: String) throws -> [DemoUser] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read the demo users at \(path)")
        }
        return try load(json: data)
    }

    /// Decodes a demo users document (the embedded defaults use this).
    /// - Parameter json: `{"users": [{id, firstName, lastName, kvnumber, accessToken}]}`.
    /// - Returns: The users.
    /// - Throws: ``ConfigurationError`` for a malformed document.
    public static func load(json: Data) throws -> [DemoUser] {
        struct File: Decodable { let users: [DemoUser] }
        do {
            return try JSONDecoder().decode(File.self, from: json).users
        } catch {
            throw ConfigurationError("the demo users document is malformed")
        }
    }
}
