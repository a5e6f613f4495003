import Testing
import WebAppRegistry
import WebAppLaunchNative

@Suite("Refusals never repeat attacker input")
struct ErrorReasonTests {
    static let marker = "EVILMARKER"

    @Test("no reason or description contains the refused input", arguments: [
        "https://\(marker).example@evil.example/",
        "javascript:\(marker)",
        "navidapro://\(marker)/details",
        "navidapro://healthmagazin/details?\(marker)=1",
        "navidapro://plugin/webapp?registeredURL=https://\(marker).example/app",
        "navidapro://plugin/webapp?registeredURL=https://a@\(marker).example/app",
    ])
    func noEcho(input: String) {
        var texts: [String] = []
        if let refusal = NavigationPolicy(app: Fixtures.magazin).decision(for: input).refusal {
            texts += [refusal.reason, refusal.description]
        }
        do throws(DeepLinkError) { _ = try DeepLink(input, allowedBy: Fixtures.allowlist) } catch { texts += [error.reason, error.description] }
        do throws(PluginLinkError) { _ = try PluginLink(input, in: Fixtures.registry) } catch { texts += [error.reason, error.description] }
        let json = #"{"action":"openUrl","data":"\#(input)"}"#
        do throws(BridgeMessageError) { _ = try BridgeMessage(body: json) } catch { texts += [error.reason, error.description] }
        #expect(texts.count >= 6)
        #expect(texts.allSatisfy { !$0.contains(Self.marker) && !$0.lowercased().contains(Self.marker.lowercased()) })
    }
}
