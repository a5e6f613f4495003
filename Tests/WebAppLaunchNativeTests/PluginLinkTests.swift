import Foundation
import Testing
import WebAppLaunchNative
import WebAppRegistry

@Suite("PluginLink: the plugin opens only apps registered at exactly that URL")
struct PluginLinkTests {
    enum Outcome: Equatable, Sendable, CustomTestStringConvertible {
        case app(String)
        case refused(PluginLinkError.Code)
        var testDescription: String {
            switch self {
            case .app(let id): "opens \(id)"
            case .refused(let code): "refused \(code)"
            }
        }
    }

    static func outcome(_ text: String) -> Outcome {
        do throws(PluginLinkError) {
            return .app(try PluginLink(text, in: Fixtures.registry).app.id)
        } catch {
            return .refused(error.code)
        }
    }

    static let prefix = "navidapro://plugin/webapp?registeredURL="

    @Test("a registered URL, raw or encoded once, resolves to its app", arguments: [
        (prefix + "https%3A%2F%2Fmagazin.example%2Fapp", "healthmagazin"),
        (prefix + "https://magazin.example/app", "healthmagazin"),
        ("NAVIDAPRO://PLUGIN/webapp?registeredURL=https://MAGAZIN.example:443/app", "healthmagazin"),
        (prefix + "https%3A%2F%2Fcoach.example%2Fapp%3Ftenant%3Da", "coach"),
        (prefix + "http://127.0.0.1:8080/dev", "dev"),
    ])
    func resolves(text: String, id: String) {
        #expect(Self.outcome(text) == .app(id))
    }

    @Test("anything but an exact registered URL is refused with a reason", arguments: [
        (prefix + "https://coach.example/app", PluginLinkError.Code.notRegistered),
        (prefix + "https://magazin.example/app/", .notRegistered),
        (prefix + "https://magazin.example/", .notRegistered),
        (prefix + "https://magazin.example/app/admin", .notRegistered),
        (prefix + "https://magazin.example:8443/app", .notRegistered),
        (prefix + "https://magazin.example.evil.example/app", .notRegistered),
        (prefix + "https://magazin.examp1e/app", .notRegistered),
        (prefix + "https://evil.example/app", .notRegistered),
        (prefix + "http%3A%2F%2Flocalhost%3A8080%2Fdev", .notRegistered),
        (prefix + "https://magazin.example@evil.example/app", .invalidRegisteredURL),
        (prefix + "https%3A%2F%2Fmagazin.example%40evil.example%2Fapp", .invalidRegisteredURL),
        (prefix + "https://evil.example%23@magazin.example/app", .invalidRegisteredURL),
        (prefix + "https://magazin.example/app/%2e%2e/admin", .invalidRegisteredURL),
        (prefix + "https://magazin.example/app%5C..%5Cadmin", .invalidRegisteredURL),
        (prefix + "http://magazin.example/app", .invalidRegisteredURL),
        (prefix + "javascript:alert(1)", .invalidRegisteredURL),
        (prefix + "ftp://magazin.example/app", .invalidRegisteredURL),
        (prefix + "file:///etc/passwd", .invalidRegisteredURL),
        (prefix + "https://magazin.example/app?launch=forged", .invalidRegisteredURL),
        (prefix, .invalidRegisteredURL),
        (prefix + "https://magazin.example/app/%252e%252e/admin", .doubleEncoded),
        (prefix + "https%253A%252F%252Fmagazin.example%252Fapp", .doubleEncoded),
        (prefix + "https://magazin.example/app&registeredURL=https://evil.example/", .repeatedRegisteredURL),
        (prefix + "https://evil.example/&registeredURL=https://magazin.example/app", .repeatedRegisteredURL),
        (prefix + "https://magazin.example/app&token=abc", .unexpectedParameter),
        ("navidapro://plugin/webapp?registeredurl=https://magazin.example/app", .unexpectedParameter),
        ("navidapro://plugin/webapp", .missingRegisteredURL),
        ("navidapro://plugin/webapp/?registeredURL=https://magazin.example/app", .notPluginLink),
        ("navidapro://plugin/WebApp?registeredURL=https://magazin.example/app", .notPluginLink),
        ("navidapro://healthmagazin/webapp?registeredURL=https://magazin.example/app", .notPluginLink),
        ("otherapp://plugin/webapp?registeredURL=https://magazin.example/app", .notPluginLink),
        ("https://plugin/webapp?registeredURL=https://magazin.example/app", .notPluginLink),
        ("navidapro://evil@plugin/webapp?registeredURL=https://magazin.example/app", .malformedLink),
        ("navidapro://plugin:1/webapp?registeredURL=https://magazin.example/app", .malformedLink),
        (prefix + "https://magazin.example/app#https://evil.example", .malformedLink),
        (prefix + "https://magazin.example\\app", .malformedLink),
        (prefix + "https://mag\u{430}zin.example/app", .malformedLink),
        (prefix + "https://magazin.example/app%0a", .malformedLink),
        (prefix + "https://magazin.example/app?x=" + Fixtures.repeated("a", 2100), .malformedLink),
    ])
    func refused(text: String, code: PluginLinkError.Code) {
        #expect(Self.outcome(text) == .refused(code))
    }

    @Test("the link built for each registered app resolves back to that app", arguments: Fixtures.registry.apps)
    func roundTrip(app: WebApp) throws {
        let link = PluginLink.link(for: app)
        #expect(link.hasPrefix(Self.prefix))
        #expect(try PluginLink(link, in: Fixtures.registry).app == app)
        let url = try #require(URL(string: link))
        #expect(try PluginLink(url, in: Fixtures.registry).app == app)
    }
}
