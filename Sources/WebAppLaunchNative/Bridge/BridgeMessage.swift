import WebAppRegistry
import Foundation

/// A message a web app posts to the native app through
/// `window.webkit.messageHandlers.AppInterface.postMessage({action, data})`.
///
/// The body is whatever the page chose to send, so decoding accepts exactly the documented
/// shapes and sizes and names the first thing wrong, never trapping on unexpected types:
///
/// | action | data | limit |
/// |---|---|---|
/// | `displayText` | a string | ``maximumTextLength`` UTF-8 bytes |
/// | `deeplink` | a deep-link string | ``maximumURLLength`` bytes; check it with ``DeepLink`` |
/// | `height` | a number, not a boolean | finite, 0 to ``maximumHeight``; applied above ``minimumAppliedHeight`` |
/// | `openUrl` | an `https` URL string | ``maximumURLLength`` bytes, strict syntax |
///
/// The object is either exactly `{action, data}` or exactly `{type, value}` (the older
/// plugin shape); extra keys or a mix of both are refused, so a message means one thing.
/// For the same reason JSON text in which any object names a key twice (however the key is
/// escaped) is refused as ``BridgeMessageError/Code/duplicateKey``: parsers silently keep
/// one of the two. (A dictionary body from WebKit has already lost any duplicate.)
/// JSON text is bounded to ``maximumJSONLength`` bytes before it is parsed. Decode only
/// messages whose frame passes ``NavigationPolicy/isAppOrigin(scheme:host:port:)``.
public enum BridgeMessage: Sendable, Hashable {
    /// Show this text natively (e.g. a toast).
    case displayText(String)
    /// Open this deep link. Not yet checked against the allowlist: pass it to
    /// ``DeepLink`` or ``NavigationPolicy`` before routing.
    case deepLink(String)
    /// The page's content height in points; apply it through ``appliedHeight``.
    case height(Double)
    /// Open this `https` URL outside the web view.
    case openURL(URL)

    /// The name the message handler must be registered under in `WKUserContentController`.
    public static let handlerName = "AppInterface"
    /// The longest `displayText`, in UTF-8 bytes.
    public static let maximumTextLength = 4096
    /// The longest `deeplink` or `openUrl` value, in UTF-8 bytes.
    public static let maximumURLLength = 2048
    /// The longest message accepted as JSON text, in UTF-8 bytes.
    public static let maximumJSONLength = 16_384
    /// The largest height accepted, in points; more is a bug or an attempt to exhaust memory.
    public static let maximumHeight = 100_000.0
    /// Heights at or below this many points are ignored, as the plugin contract requires
    /// (pages report tiny heights while their content is still loading).
    public static let minimumAppliedHeight = 100.0

    /// Decodes a message body as WebKit hands it over.
    /// - Parameter body: `WKScriptMessage.body`: a dictionary of JSON values, or JSON text as
    ///   a `String` or `Data`.
    /// - Throws: ``BridgeMessageError`` naming the first problem.
    public init(body: Any) throws(BridgeMessageError) {
        switch body {
        case let text as String:
            try self.init(json: Data(text.utf8))
        case let data as Data:
            try self.init(json: data)
        case let object as [String: Any]:
            try self.init(object: object)
        default:
            throw BridgeMessageError(.unsupportedBody, "a message must be an object or JSON text")
        }
    }

    /// Decodes a message sent as JSON text.
    /// - Parameter json: UTF-8 JSON of one object, at most ``maximumJSONLength`` bytes.
    /// - Throws: ``BridgeMessageError`` naming the first problem.
    public init(json: Data) throws(BridgeMessageError) {
        guard json.count <= Self.maximumJSONLength else {
            throw BridgeMessageError(.jsonTooLarge, "a JSON message must be at most \(Self.maximumJSONLength) bytes")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            throw BridgeMessageError(.invalidJSON, "the message is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw BridgeMessageError(.unsupportedBody, "a JSON message must be an object")
        }
        guard !JSONDuplicateKeys.containsDuplicate(in: json) else {
            throw BridgeMessageError(.duplicateKey, "an object in the message names the same key twice")
        }
        try self.init(object: object)
    }

    /// The height to apply to the web view, or `nil` when this message must not resize it.
    ///
    /// `nil` for every message other than ``height(_:)`` and for heights at or below
    /// ``minimumAppliedHeight``.
    public var appliedHeight: Double? {
        guard case .height(let height) = self, height > Self.minimumAppliedHeight else { return nil }
        return height
    }

    private init(object: [String: Any]) throws(BridgeMessageError) {
        let keys = Set(object.keys)
        let action: Any
        let data: Any?
        if keys.isSubset(of: ["action", "data"]), let value = object["action"] {
            (action, data) = (value, object["data"])
        } else if keys.isSubset(of: ["type", "value"]), let value = object["type"] {
            (action, data) = (value, object["value"])
        } else {
            throw BridgeMessageError(.invalidShape, "a message must be exactly {action, data} or {type, value}")
        }
        guard let action = action as? String else {
            throw BridgeMessageError(.invalidShape, "the action must be a string")
        }
        guard ["displayText", "deeplink", "height", "openUrl"].contains(action) else {
            throw BridgeMessageError(.unknownAction, "the action is not one the native app supports")
        }
        guard let data, !(data is NSNull) else {
            throw BridgeMessageError(.missingData, "the message has no data")
        }
        switch action {
        case "displayText":
            let text = try Self.string(data)
            guard text.utf8.count <= Self.maximumTextLength else {
                throw BridgeMessageError(.textTooLong, "displayText must be at most \(Self.maximumTextLength) bytes")
            }
            self = .displayText(text)
        case "deeplink":
            self = .deepLink(try Self.urlText(data))
        case "height":
            self = .height(try Self.height(data))
        default:
            self = .openURL(try Self.httpsURL(data))
        }
    }

    private static func string(_ value: Any) throws(BridgeMessageError) -> String {
        guard let text = value as? String else {
            throw BridgeMessageError(.wrongType, "the data must be a string")
        }
        return text
    }

    private static func urlText(_ value: Any) throws(BridgeMessageError) -> String {
        let text = try string(value)
        guard !text.isEmpty, text.utf8.count <= maximumURLLength else {
            throw BridgeMessageError(.urlTooLong, "a URL must be 1 to \(maximumURLLength) bytes")
        }
        return text
    }

    /// Reads a number, refusing booleans: JavaScript's `true` arrives as an `NSNumber` (on
    /// Darwin and on Linux) and would otherwise read as 1.
    private static func height(_ value: Any) throws(BridgeMessageError) -> Double {
        guard !(value is String), let number = value as? NSNumber else {
            throw BridgeMessageError(.wrongType, "a height must be a number")
        }
        // Booleans are the only NSNumbers whose Objective-C type is `c` (char) that a page can send.
        guard String(cString: number.objCType) != "c" else {
            throw BridgeMessageError(.wrongType, "a height must be a number, not a boolean")
        }
        let height = number.doubleValue
        guard height.isFinite, height >= 0, height <= maximumHeight else {
            throw BridgeMessageError(.invalidHeight, "a height must be a finite number from 0 to \(Int(maximumHeight))")
        }
        return height
    }

    private static func httpsURL(_ value: Any) throws(BridgeMessageError) -> URL {
        let text = try urlText(value)
        guard let (scheme, _) = URLSyntax.splitScheme(text), URLSyntax.isPrintableASCII(text) else {
            throw BridgeMessageError(.malformedURL, "openUrl needs an absolute https URL in printable ASCII")
        }
        guard scheme == "https" else {
            throw BridgeMessageError(.notHTTPS, "openUrl opens only https URLs")
        }
        do throws(URLSyntaxError) {
            _ = try WebAddress(text)
        } catch {
            throw BridgeMessageError(.malformedURL, error.reason)
        }
        guard let url = URL(string: text) else {
            throw BridgeMessageError(.malformedURL, "openUrl's URL cannot be opened")
        }
        return url
    }
}
