import Foundation

/// The shape of `Vectors/vectors.json`, written by `scripts/vectors.py`.
struct VectorFile: Decodable, Sendable {
    struct User: Decodable, Sendable {
        let access_token: String
        let firstname: String
        let lastname: String
        let kvnumber: String
    }

    struct Inputs: Decodable, Sendable {
        let secret_hex: String
        let kid: String
        let app_id: String
        let registered_url: String
        let iat: UInt64
        let lifetime: UInt64
        let mode: String
        let user: User
        let nonce_hex: String
        let iv_hex: String?
    }

    struct Intermediates: Decodable, Sendable {
        let app_key_hex: String
        let mac_key_hex: String
        let seal_key_hex: String
        let session_key_hex: String
        let replay_key_hex: String
        let audience: String
        let exp: UInt64
        let claims_block_hex: String
        let header_hex: String
        let body_hex: String
        let mac_input_hex: String
        let mac_hex: String
        let replay_id_hex: String
    }

    struct Expected: Decodable, Sendable {
        let token: String
        let launch_url: String
        let claims: User
    }

    struct Vector: Decodable, Sendable {
        let name: String
        let description: String
        let inputs: Inputs
        let intermediates: Intermediates
        let expected: Expected
    }

    /// A keyring: `launcher` keys carry root secrets, `app` keys the app keys of `app`.
    struct KeyringSpec: Decodable, Sendable {
        struct Key: Decodable, Sendable {
            let kid: String
            let status: String
            let secret_hex: String?
            let app_key_hex: String?
        }
        let kind: String
        let app: String?
        let keys: [Key]
    }

    struct Negative: Decodable, Sendable {
        let name: String
        let description: String
        let keyring: KeyringSpec
        let app_id: String
        let registered_url: String
        let now: UInt64
        let token: String?
        let query: String?
        let form: String?
        let url: String?
        let expected_error: String?
    }

    /// A session payload's fields (SPEC.md §12.2).
    struct SessionFields: Decodable, Sendable, Equatable {
        let expires_at: UInt64
        let app: String
        let kid: String
        let launch_id_hex: String
        let firstname: String
        let lastname: String
        let kvnumber: String
        let access_token: String?
    }

    struct Session: Decodable, Sendable {
        let name: String
        let description: String
        let keyring: KeyringSpec
        let app_id: String
        let now: UInt64
        let payload: SessionFields?
        let payload_hex: String?
        let iv_hex: String?
        let app_key_hex: String?
        let session_key_hex: String?
        let cookie: String
    }

    /// A registered URL (SPEC.md §8.1): its canonical text and loopback verdict, or `nil` for both when refused.
    struct URLCase: Decodable, Sendable {
        let name: String
        let description: String
        let url: String
        let canonical: String?
        let loopback: Bool?
    }

    /// A registry entry as loaded (SPEC.md §8.3), with defaults filled in.
    struct RegistryApp: Decodable, Sendable, Equatable {
        struct Links: Decodable, Sendable, Equatable {
            let scheme: String
            let hosts: [String]
            let pathPrefixes: [String]
            let queryKeys: [String]
        }
        let id: String
        let title: String
        let summary: String
        let url: String
        let deepLinks: Links?
        let iconURL: String?
        let category: String
    }

    /// A registry file and what it loads to, or its error code.
    struct RegistryCase: Decodable, Sendable {
        let name: String
        let description: String
        let json: String
        let apps: [RegistryApp]?
        let expected_error: String?
    }

    /// What a keyring file holds (SPEC.md §13), secrets aside.
    struct KeyringSummary: Decodable, Sendable, Equatable {
        struct Key: Decodable, Sendable, Equatable {
            let kid: String
            let status: String
        }
        let kind: String
        let app: String?
        let development: Bool
        let keys: [Key]
    }

    /// A keyring file and what it loads to, or its error code.
    struct KeyringCase: Decodable, Sendable {
        let name: String
        let description: String
        let json: String
        let keyring: KeyringSummary?
        let expected_error: String?
    }

    let format: String
    let vectors: [Vector]
    let negative: [Negative]
    let sessions: [Session]
    let urls: [URLCase]
    let registries: [RegistryCase]
    let keyrings: [KeyringCase]

    static let shared: VectorFile = {
        let url = Bundle.module.url(forResource: "vectors", withExtension: "json", subdirectory: "Vectors")!
        return try! JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
    }()
}

