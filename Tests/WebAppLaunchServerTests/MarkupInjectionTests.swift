import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WebAppLaunch
import WebAppLaunchMiddleware
import WebAppLaunchServer

/// Review finding 1: swift-mustache escaped per `Character`, so a markup character joined
/// to a neighbouring scalar in one grapheme cluster was copied raw. These tests cover the
/// class: every markup scalar, with a Prepend scalar before it or an Extend / SpacingMark
/// scalar after it, in element text and in attribute values, on every page that writes HTML.
@Suite("Names never reshape a page: HTML is escaped per Unicode scalar, whatever the grapheme clusters")
struct MarkupInjectionTests {
    /// The markup scalars a browser's tokenizer acts on.
    static let markup: [Unicode.Scalar] = ["<", ">", "\"", "'", "&"]

    /// Scalars that join a neighbour into one grapheme cluster: (name, scalar, before?).
    static let joiners: [(String, Unicode.Scalar, Bool)] = [
        ("Prepend U+0D4E before", "\u{0D4E}", true),
        ("Prepend U+0600 before", "\u{0600}", true),
        ("Extend U+0301 after", "\u{0301}", false),
        ("Extend U+200D after", "\u{200D}", false),
        ("SpacingMark U+0903 after", "\u{0903}", false),
    ]

    /// One text per markup scalar and joiner, each holding that clustered scalar.
    static let clustered: [String] = markup.flatMap { mark in
        joiners.map { _, joiner, before in
            var scalars = String.UnicodeScalarView()
            if before { scalars.append(joiner) }
            scalars.append(mark)
            if !before { scalars.append(joiner) }
            return String(scalars)
        }
    }

    @Test("every markup scalar is replaced by a character reference even inside a grapheme cluster", arguments: clustered)
    func escapingIsPerScalar(text: String) {
        #expect(Character(text) != Character(String(text.unicodeScalars.first { Self.markup.contains($0) }!)),
                "the fixture really is one cluster that differs from the bare markup character")
        let escaped = HTMLEscaping.escape(text)
        #expect(!escaped.unicodeScalars.contains { Self.markup.contains($0) && $0 != "&" })
        // Every `&` left starts a character reference: as many `&` as `;` (counted as scalars).
        #expect(escaped.unicodeScalars.filter { $0 == "&" }.count == escaped.unicodeScalars.filter { $0 == ";" }.count)
    }

    /// A payload for element text and one for attribute values, hidden behind a joiner.
    static func payloads(_ joiner: Unicode.Scalar, before: Bool) -> (text: String, attribute: String) {
        let j = String(joiner)
        let lt = before ? j + "<" : "<" + j
        let quote = before ? j + "\"" : "\"" + j
        return (
            "Eva" + lt + "button data-bridge-action=openUrl data-bridge-data=https://evil.example" + lt + "/button>",
            "Eva" + quote + " data-bridge-action=" + quote + "openUrl" + lt + "meta http-equiv=refresh content=0;url=https://evil.example>"
        )
    }

    /// The joiners a name may carry: the claim rules already refuse format controls (Cf), so
    /// U+0600 and U+200D never reach a page (that refusal is covered by the claim tests).
    static let joinersAllowedInNames = joiners.filter { $0.1.properties.generalCategory != .format }.map(\.0)

    @Test("a launched page renders clustered markup in names as text: no element or attribute is added", arguments: joinersAllowedInNames)
    func pageStaysIntact(joiner name: String) async throws {
        let (_, joiner, before) = Self.joiners.first { $0.0 == name }!
        let (text, attribute) = Self.payloads(joiner, before: before)
        let baseline = HTMLScan.elements(in: try await PageRenderingTests.page().text)
        let user = LaunchUser(accessToken: Fixtures.user.accessToken, firstName: text, lastName: attribute, kvnumber: Fixtures.user.kvnumber)
        let html = try await PageRenderingTests.page(for: user).text
        let elements = HTMLScan.elements(in: html)
        #expect(elements == baseline, "the page has exactly the elements and attributes of a plain page")
        #expect(!elements.contains { $0.name == "meta" && $0.attributes.contains("http-equiv") })
        // Compared as bytes: a Character-wise `contains` would miss "&lt;" followed by a mark.
        #expect(Array(html.utf8).containsSubsequence(Array("&lt;".utf8)))
        #expect(Array(html.utf8).containsSubsequence(Array("&quot;".utf8)))
    }

    @Test("the console echoes a pasted clustered link as text", arguments: joiners.map(\.0))
    func consoleEchoIsEscaped(joiner name: String) async throws {
        let (_, joiner, before) = Self.joiners.first { $0.0 == name }!
        let (text, _) = Self.payloads(joiner, before: before)
        var configuration = DevelopmentConsoleTests.consoleConfiguration()
        configuration.demoUsers = DevelopmentConsoleTests.users
        let server = try TestServer(configuration: configuration)
        try await server.test { client in
            // The same refusal for a harmless link is the baseline.
            let plain = try await client.postConsoleForm("/console/plugin", form: "user=zoe&link=garbage")
            let encoded = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await client.postConsoleForm("/console/plugin", form: "user=zoe&link=\(encoded)")
            #expect(response.status == .unprocessableContent)
            let elements = HTMLScan.elements(in: response.text)
            #expect(!elements.contains { $0.name == "button" && $0.attributes.contains("data-bridge-action") })
            #expect(elements == HTMLScan.elements(in: plain.text))
        }
    }

    @Test("the rejection page escapes per scalar too, so no caller can pass markup through it", arguments: clustered)
    func rejectionPageEscapes(text: String) {
        let html = RejectionPage.html(title: text, reason: text, hint: text)
        let elements = HTMLScan.elements(in: html)
        #expect(elements.map(\.name) == ["html", "head", "meta", "meta", "link", "title", "style", "body", "h1", "p", "code", "p"])
    }
}

extension Array where Element: Equatable {
    /// Whether `needle` occurs as a contiguous run.
    func containsSubsequence(_ needle: [Element]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
