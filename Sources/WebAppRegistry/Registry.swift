import Foundation

/// The catalogue of registered web apps: the only places a launch may be sent.
///
/// The launcher mints launches only for apps listed here, and the native side resolves
/// plugin links only to URLs listed here. Loading is strict: duplicate ids or URLs and
/// malformed entries are errors, so a typo cannot silently widen where identities go.
public struct Registry: Sendable {
    /// The registered apps, in file order.
    public let apps: [WebApp]
    private let byID: [String: WebApp]
    private let byURL: [RegisteredURL: WebApp]

    /// Creates a registry from entries.
    /// - Parameter apps: The apps; ids and registered URLs must be unique.
    /// - Throws: ``RegistryError/Code/duplicateApp`` on a repeated id or URL.
    public init(apps: [WebApp]) throws(RegistryError) {
        var byID: [String: WebApp] = [:]
        var byURL: [RegisteredURL: WebApp] = [:]
        for app in apps {
            guard byID.updateValue(app, forKey: app.id) == nil else {
                throw RegistryError(.duplicateApp, "the app id `\(app.id)` is registered twice")
            }
            guard byURL.updateValue(app, forKey: app.url) == nil else {
                throw RegistryError(.duplicateApp, "the URL of `\(app.id)` is registered twice")
            }
        }
        self.apps = apps
        self.byID = byID
        self.byURL = byURL
    }

    /// Loads a registry file (see `registry.sample.json`).
    ///
    /// The registry decides where launches, and the identities in them, may go, so a file
    /// that group or others may write is refused, as ssh refuses a loose `authorized_keys`
    /// (the bytes and the mode are read through one descriptor).
    /// - Parameter path: The file's path.
    /// - Throws: ``RegistryError`` when the file is missing, not a regular file, writable by
    ///   group or others, not JSON, or any entry is invalid.
    public init(contentsOfFile path: String) throws(RegistryError) {
        let file: RegularFileContents
        do {
            file = try RegularFileContents(atPath: path)
        } catch {
            throw RegistryError(.unreadableFile, "cannot read the registry at \(path) (\(error.reason))")
        }
        guard !file.isWritableByOthers else {
            throw RegistryError(
                .insecurePermissions,
                "the registry \(path) is writable by group or others (mode \(String(file.permissions, radix: 8))); run chmod go-w"
            )
        }
        try self.init(json: file.data)
    }

    /// Decodes a registry from JSON: `{"apps": [{"id", "title", "summary", "url", "deepLinks",
    /// "iconURL", "category", "accessToken"}]}`; `summary`, `deepLinks`, `iconURL`, `category` and
    /// `accessToken` (see ``PartnerAccessToken``) are optional.
    /// - Parameter json: The JSON bytes.
    /// - Throws: ``RegistryError`` for malformed JSON or invalid entries.
    public init(json: Data) throws(RegistryError) {
        let file: RegistryFile
        do {
            file = try JSONDecoder().decode(RegistryFile.self, from: json)
        } catch {
            throw RegistryError(.invalidJSON, "the registry is not valid JSON of the expected shape")
        }
        var apps: [WebApp] = []
        // SPEC.md §8.3: each entry in file order, its members in this order: id, url,
        // deepLinks, iconURL, category (every JSON type was checked above, for all entries).
        for entry in file.apps {
            guard WebApp.isValidID(entry.id) else {
                throw RegistryError(.invalidAppID, "an app id must be 1 to \(WebApp.maximumIDLength) characters of [A-Za-z0-9._-]")
            }
            let url = try RegisteredURL(entry.url)
            try entry.deepLinks?.validate()
            var iconURL: URL?
            if let icon = entry.iconURL {
                guard let parsed = WebApp.iconURL(icon) else {
                    throw RegistryError(.invalidIconURL, "the icon of `\(entry.id)` must be an https URL (http only on loopback)")
                }
                iconURL = parsed
            }
            apps.append(try WebApp(
                id: entry.id,
                title: entry.title,
                summary: entry.summary ?? "",
                url: url,
                deepLinks: entry.deepLinks,
                iconURL: iconURL,
                category: entry.category ?? WebApp.defaultCategory,
                accessToken: entry.accessToken ?? .none
            ))
        }
        try self.init(apps: apps)
    }

    /// The app registered under an id.
    /// - Parameter id: The app id.
    /// - Returns: The app, or `nil` when none has that id.
    public func app(id: String) -> WebApp? { byID[id] }

    /// The app registered at exactly this URL, after normalisation.
    /// - Parameter url: A registered URL.
    /// - Returns: The app, or `nil` when the URL is not registered.
    public func app(at url: RegisteredURL) -> WebApp? { byURL[url] }
}

private struct RegistryFile: Decodable {
    struct Entry: Decodable {
        let id: String
        let title: String
        let summary: String?
        let url: String
        let deepLinks: DeepLinkAllowlist?
        let iconURL: String?
        let category: String?
        let accessToken: PartnerAccessToken?
    }
    let apps: [Entry]
}
