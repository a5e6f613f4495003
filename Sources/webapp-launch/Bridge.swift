import ArgumentParser
import Foundation
import WebAppLaunchNative
import WebAppRegistry

extension WebAppLaunchCommand {
    /// Decodes a message a page posted to the native bridge, and decides what the app would do.
    struct Bridge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a bridge message as the native app would, and show the app's decision.",
            discussion: """
            Prints one JSON object per message: the decoded action and, for deep links and URLs,
            the navigation decision. Exit 1 when the message is refused.
            Example:
              webapp-launch bridge --app healthmagazin '{"action":"deeplink","data":"navidapro://healthmagazin/details?article_id=606"}'
            """
        )

        @Option(name: .long, help: "The registered app whose page posted the message.")
        var app: String

        @OptionGroup var registry: RegistryOption

        @Argument(help: "The message as JSON text, or - to read JSON lines from standard input.")
        var message: String

        func run() throws {
            let registry = try registry.load()
            guard let entry = registry.app(id: app) else { throw CommandFailure.configuration("no app \(app) in the registry") }
            let policy = NavigationPolicy(app: entry, allowsLoopbackHTTP: entry.url.isLoopback)
            let messages: [String]
            if message == "-" {
                let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                messages = input.split(separator: "\n").map(String.init)
            } else {
                messages = [message]
            }
            var refused = false
            for text in messages {
                let result = Self.describe(text, app: entry, policy: policy)
                if result["refused"] as? Bool == true { refused = true }
                try TerminalText.printJSON(result)
            }
            if refused { throw CommandFailure.rejected("a bridge message was refused") }
        }

        static func describe(_ text: String, app: WebApp, policy: NavigationPolicy) -> [String: Any] {
            let message: BridgeMessage
            do {
                message = try BridgeMessage(json: Data(text.utf8))
            } catch {
                return ["refused": true, "error": error.code.rawValue]
            }
            switch message {
            case .displayText(let text):
                return ["refused": false, "action": "displayText", "data": text]
            case .height(let height):
                return ["refused": false, "action": "height", "data": height, "applied": message.appliedHeight != nil]
            case .deepLink(let link):
                let decision = policy.decision(for: link)
                return ["refused": !decision.isRouteInApp, "action": "deeplink", "data": link, "decision": decision.name]
            case .openURL(let url):
                let decision = policy.decision(for: url)
                return ["refused": false, "action": "openUrl", "data": url.absoluteString, "decision": decision.name]
            }
        }
    }
}

extension NavigationDecision {
    /// A stable name for printing.
    var name: String {
        switch self {
        case .allow: "allow"
        case .routeInApp: "routeInApp"
        case .openExternally: "openExternally"
        case .cancel(let refusal): "cancel:\(refusal.code.rawValue)"
        }
    }

    var isRouteInApp: Bool {
        if case .routeInApp = self { return true }
        return false
    }
}
