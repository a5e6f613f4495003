import Foundation
import Testing
import WebAppLaunchNative
import WebAppRegistry

@Suite("DeepLink: only links on the registered app's allowlist are accepted")
struct DeepLinkTests {
    enum Outcome: Equatable, Sendable, CustomTestStringConvertible {
        case accepted(String)
        case refused(DeepLinkError.Code)
        var testDescription: String {
            switch self {
            case .accepted(let link): "accepted \(link)"
            case .refused(let code): "refused \(code)"
            }
        }
    }

    static func outcome(_ text: String, _ allowlist: DeepLinkAllowlist? = Fixtures.allowlist) -> Outcome {
        do throws(DeepLinkError) {
            return .accepted(try DeepLink(text, allowedBy: allowlist).description)
        } catch {
            return .refused(error.code)
        }
    }

    static let product = "navidapro://healthmagazin/details?article_id=606"

    @Test("allowlisted links are accepted, with scheme and host normalised to lower case", arguments: [
        (product, product),
        ("NAVIDAPRO://HealthMagazin/details?article_id=606", product),
        ("navidapro://healthmagazin/details", "navidapro://healthmagazin/details"),
        ("navidapro://healthmagazin/details/606", "navidapro://healthmagazin/details/606"),
        ("navidapro://healthmagazin/details/", "navidapro://healthmagazin/details/"),
        ("navidapro://healthmagazin/details?article_id=caf%C3%A9", "navidapro://healthmagazin/details?article_id=caf%C3%A9"),
    ])
    func accepted(text: String, canonical: String) {
        #expect(Self.outcome(text) == .accepted(canonical))
    }

    @Test("the product's link exposes its host, path and decoded parameters")
    func productLinkParts() throws {
        let link = try DeepLink(Self.product, allowedBy: Fixtures.allowlist)
        #expect(link.scheme == "navidapro")
        #expect(link.host == "healthmagazin")
        #expect(link.path == "/details")
        #expect(link.parameters == ["article_id": "606"])
        #expect(link.url.absoluteString == Self.product)
        let encoded = try DeepLink("navidapro://healthmagazin/details?article_id=caf%C3%A9", allowedBy: Fixtures.allowlist)
        #expect(encoded.parameters["article_id"] == "café")
    }

    @Test("links outside the allowlist are refused with the rule they break", arguments: [
        ("navidapro://healthmagazin/detailsevil", DeepLinkError.Code.pathNotAllowed),
        ("navidapro://healthmagazin/settings", .pathNotAllowed),
        ("navidapro://healthmagazin", .pathNotAllowed),
        ("navidapro://healthmagazin/%64etails", .pathNotAllowed),
        ("navidapro://payments/details?article_id=1", .hostNotAllowed),
        ("navidapro://healthmagazin.evil/details", .hostNotAllowed),
        ("navidapro://plugin/webapp?registeredURL=https://evil.example/", .hostNotAllowed),
        ("navidapro://healthmagazin/details?article_id=606&kvnr=A123456789", .queryKeyNotAllowed),
        ("navidapro://healthmagazin/details?Article_ID=606", .queryKeyNotAllowed),
        ("navidapro://healthmagazin/details?article_id=1&article_id=2", .repeatedQueryKey),
        ("otherapp://healthmagazin/details", .schemeNotAllowed),
        ("https://healthmagazin/details", .schemeNotAllowed),
    ])
    func notAllowed(text: String, code: DeepLinkError.Code) {
        #expect(Self.outcome(text) == .refused(code))
    }

    @Test("malformed and smuggling links are refused before the allowlist is consulted", arguments: [
        ("navidapro://user@healthmagazin/details", DeepLinkError.Code.userinfo),
        ("navidapro://healthmagazin@evil/details", .userinfo),
        ("navidapro://healthmagazin:8080/details", .port),
        ("navidapro://healthmagazin/details#top", .fragment),
        ("navidapro://healthmagazin/details/../settings", .dotSegment),
        ("navidapro://healthmagazin/details/./x", .dotSegment),
        ("navidapro://healthmagazin/details/%2e%2e/settings", .encodedDotOrSlash),
        ("navidapro://healthmagazin/details/%2E%2E/settings", .encodedDotOrSlash),
        ("navidapro://healthmagazin/details%2fsettings", .encodedDotOrSlash),
        ("navidapro://healthmagazin/details%5c..", .encodedDotOrSlash),
        ("navidapro://healthmagazin/details\\..\\settings", .forbiddenCharacter),
        ("navidapro://healthmagazin/details?article_id=6%0a06", .forbiddenCharacter),
        ("navidapro://healthmagazin/details%00", .forbiddenCharacter),
        ("navidapro://healthmagazin/details?article_id=6 06", .forbiddenCharacter),
        ("\u{0}navidapro://healthmagazin/details", .forbiddenCharacter),
        (" navidapro://healthmagazin/details", .forbiddenCharacter),
        ("navidapro://healthm\u{430}gazin/details", .forbiddenCharacter),
        ("navidapro://healthmagazin/details<script>", .forbiddenCharacter),
        ("navidapro://healthmagazin//details", .malformed),
        ("navidapro:healthmagazin/details", .malformed),
        ("navidapro:///details", .malformed),
        ("navidapro://healthmagazin/details?article_id=%zz", .malformed),
        ("navidapro://healthmagazin/details?article_id=%C0%AE", .malformed),
        ("navidapro://healthmagazin/details?=606", .malformed),
        ("navidapro://healthmagazin/details?article_id=1&", .malformed),
        ("", .tooLong),
        ("navidapro://healthmagazin/details?article_id=" + Fixtures.repeated("1", 2100), .tooLong),
    ])
    func malformed(text: String, code: DeepLinkError.Code) {
        #expect(Self.outcome(text) == .refused(code))
    }

    @Test("an app without an allowlist may open no deep link at all")
    func noAllowlist() {
        #expect(Self.outcome(Self.product, nil) == .refused(.noAllowlist))
    }

    @Test("an allowlist of `/` or no prefixes allows every path, still only on its hosts", arguments: [
        (DeepLinkAllowlist(hosts: ["healthmagazin"], pathPrefixes: ["/"]), "navidapro://healthmagazin/anything", Outcome.accepted("navidapro://healthmagazin/anything")),
        (DeepLinkAllowlist(hosts: ["healthmagazin"]), "navidapro://healthmagazin", .accepted("navidapro://healthmagazin")),
        (DeepLinkAllowlist(hosts: ["healthmagazin"]), "navidapro://other/anything", .refused(.hostNotAllowed)),
        (DeepLinkAllowlist(hosts: ["healthmagazin"]), "navidapro://healthmagazin/x?article_id=1", .refused(.queryKeyNotAllowed)),
    ])
    func openPaths(allowlist: DeepLinkAllowlist, text: String, expected: Outcome) {
        #expect(Self.outcome(text, allowlist) == expected)
    }
}
