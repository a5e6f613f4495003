import Foundation
import Testing
import WebAppLaunchNative

@Suite("BridgeMessage: the page's AppInterface messages are decoded strictly")
struct BridgeMessageTests {
    enum Outcome: Equatable, Sendable, CustomTestStringConvertible {
        case message(BridgeMessage)
        case refused(BridgeMessageError.Code)
        var testDescription: String {
            switch self {
            case .message(let message): "\(message)"
            case .refused(let code): "refused \(code)"
            }
        }
    }

    /// A body as WebKit would hand it over, built at test time because `Any` is not `Sendable`.
    struct Body: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let make: @Sendable () -> Any
        init(_ name: String, _ make: @escaping @Sendable () -> Any) {
            self.testDescription = name
            self.make = make
        }
    }

    static func outcome(_ body: Any) -> Outcome {
        do throws(BridgeMessageError) {
            return .message(try BridgeMessage(body: body))
        } catch {
            return .refused(error.code)
        }
    }

    static let product = "navidapro://healthmagazin/details?article_id=606"
    static func url(_ text: String) -> URL { URL(string: text)! }

    @Test("well-formed JSON messages decode in both shapes", arguments: [
        (#"{"action":"displayText","data":"Hallo"}"#, Outcome.message(.displayText("Hallo"))),
        (#"{"type":"displayText","value":"Gespeichert ✓"}"#, .message(.displayText("Gespeichert ✓"))),
        (#"{"action":"deeplink","data":"navidapro://healthmagazin/details?article_id=606"}"#, .message(.deepLink(product))),
        (#"{"type":"deeplink","value":"navidapro://healthmagazin/details?article_id=606"}"#, .message(.deepLink(product))),
        (#"{"action":"height","data":250}"#, .message(.height(250))),
        (#"{"type":"height","value":312.5}"#, .message(.height(312.5))),
        (#"{"action":"height","data":0}"#, .message(.height(0))),
        (#"{"action":"openUrl","data":"https://www.example.org/info?a=1"}"#, .message(.openURL(url("https://www.example.org/info?a=1")))),
        (#"{"type":"openUrl","value":"https://www.example.org/"}"#, .message(.openURL(url("https://www.example.org/")))),
        (#"  {"action":"displayText","data":""}  "#, .message(.displayText(""))),
    ])
    func decodesJSON(json: String, expected: Outcome) {
        #expect(Self.outcome(json) == expected)
        #expect(Self.outcome(Data(json.utf8)) == expected)
    }

    @Test("wrong shapes, types, values and sizes are refused with the exact code", arguments: [
        (#"{"action":"height","data":true}"#, BridgeMessageError.Code.wrongType),
        (#"{"action":"height","data":false}"#, .wrongType),
        (#"{"action":"height","data":"300"}"#, .wrongType),
        (#"{"action":"height","data":[300]}"#, .wrongType),
        (#"{"action":"height","data":-1}"#, .invalidHeight),
        (#"{"action":"height","data":-0.001}"#, .invalidHeight),
        (#"{"action":"height","data":1e308}"#, .invalidHeight),
        (#"{"action":"height","data":100001}"#, .invalidHeight),
        (#"{"action":"height","data":1e400}"#, .invalidJSON),
        (#"{"action":"height","data":NaN}"#, .invalidJSON),
        (#"{"action":"height","data":null}"#, .missingData),
        (#"{"action":"height"}"#, .missingData),
        (#"{"action":"launchRocket","data":"x"}"#, .unknownAction),
        (#"{"action":"DisplayText","data":"x"}"#, .unknownAction),
        (#"{"action":"","data":"x"}"#, .unknownAction),
        (#"{"action":42,"data":"x"}"#, .invalidShape),
        (#"{"action":"displayText","value":"x"}"#, .invalidShape),
        (#"{"action":"displayText","data":"x","type":"height","value":500}"#, .invalidShape),
        (#"{"action":"displayText","data":"x","callback":"steal"}"#, .invalidShape),
        (#"{"data":"x"}"#, .invalidShape),
        (#"{}"#, .invalidShape),
        (#"[]"#, .unsupportedBody),
        (#""displayText""#, .unsupportedBody),
        (#"42"#, .unsupportedBody),
        (#"{"action":"displayText""#, .invalidJSON),
        (#""#, .invalidJSON),
        (#"{"action":"displayText","data":{"text":"x"}}"#, .wrongType),
        (#"{"action":"displayText","data":12}"#, .wrongType),
        (#"{"action":"deeplink","data":""}"#, .urlTooLong),
        (#"{"action":"deeplink","data":false}"#, .wrongType),
        (#"{"action":"openUrl","data":"http://www.example.org/"}"#, .notHTTPS),
        (#"{"action":"openUrl","data":"javascript:alert(document.cookie)"}"#, .notHTTPS),
        (#"{"action":"openUrl","data":"JaVaScRiPt:alert(1)"}"#, .notHTTPS),
        (#"{"action":"openUrl","data":"data:text/html,<script>alert(1)</script>"}"#, .notHTTPS),
        (#"{"action":"openUrl","data":"file:///etc/passwd"}"#, .notHTTPS),
        (#"{"action":"openUrl","data":"navidapro://healthmagazin/details"}"#, .notHTTPS),
        (#"{"action":"openUrl","data":" https://www.example.org/"}"#, .malformedURL),
        (#"{"action":"openUrl","data":"\u0001javascript:alert(1)"}"#, .malformedURL),
        (#"{"action":"openUrl","data":"https://magazin.example@evil.example/"}"#, .malformedURL),
        (#"{"action":"openUrl","data":"https://evil.example\\@magazin.example/"}"#, .malformedURL),
        (#"{"action":"openUrl","data":"https://mag\u0430zin.example/"}"#, .malformedURL),
        (#"{"action":"openUrl","data":"https://www.example.org:99999/"}"#, .malformedURL),
        (#"{"action":"openUrl","data":"www.example.org"}"#, .malformedURL),
    ])
    func refusesJSON(json: String, code: BridgeMessageError.Code) {
        #expect(Self.outcome(json) == .refused(code))
    }

    @Test("oversize input is refused at the documented limits", arguments: [
        (#"{"action":"displayText","data":""# + Fixtures.repeated("a", 4096) + #""}"#, Outcome.message(.displayText(Fixtures.repeated("a", 4096)))),
        (#"{"action":"displayText","data":""# + Fixtures.repeated("a", 4097) + #""}"#, .refused(.textTooLong)),
        (#"{"action":"displayText","data":""# + Fixtures.repeated("ä", 2049) + #""}"#, .refused(.textTooLong)),
        (#"{"action":"deeplink","data":"navidapro://healthmagazin/details?article_id="# + Fixtures.repeated("1", 2048) + #""}"#, .refused(.urlTooLong)),
        (#"{"action":"openUrl","data":"https://www.example.org/?q="# + Fixtures.repeated("a", 2048) + #""}"#, .refused(.urlTooLong)),
        (#"{"action":"displayText","data":"x","pad":""# + Fixtures.repeated(" ", 16_384) + #""}"#, .refused(.jsonTooLarge)),
        (Fixtures.repeated("[", 10_000), .refused(.invalidJSON)),
        (Fixtures.repeated(#"{"a":"#, 3_000), .refused(.invalidJSON)),
    ])
    func limits(json: String, expected: Outcome) {
        #expect(Self.outcome(json) == expected)
    }

    @Test("dictionaries as WebKit hands them over decode, and booleans never pass as numbers", arguments: [
        (Body("Int height") { ["action": "height", "data": 250] }, Outcome.message(.height(250))),
        (Body("Double height") { ["action": "height", "data": 250.5] }, .message(.height(250.5))),
        (Body("NSNumber height") { ["type": "height", "value": NSNumber(value: 480)] }, .message(.height(480))),
        (Body("NSNumber 1") { ["action": "height", "data": NSNumber(value: 1)] }, .message(.height(1))),
        (Body("Swift Bool height") { ["action": "height", "data": true] }, .refused(.wrongType)),
        (Body("NSNumber Bool height") { ["action": "height", "data": NSNumber(value: true)] }, .refused(.wrongType)),
        (Body("NaN height") { ["action": "height", "data": Double.nan] }, .refused(.invalidHeight)),
        (Body("infinite height") { ["action": "height", "data": Double.infinity] }, .refused(.invalidHeight)),
        (Body("-infinite height") { ["action": "height", "data": -Double.infinity] }, .refused(.invalidHeight)),
        (Body("negative height") { ["action": "height", "data": -0.5] }, .refused(.invalidHeight)),
        (Body("String height") { ["action": "height", "data": "250"] }, .refused(.wrongType)),
        (Body("NSNull text") { ["action": "displayText", "data": NSNull()] }, .refused(.missingData)),
        (Body("number text") { ["action": "displayText", "data": 7] }, .refused(.wrongType)),
        (Body("deeplink") { ["type": "deeplink", "value": product] }, .message(.deepLink(product))),
        (Body("Int body") { 42 }, .refused(.unsupportedBody)),
        (Body("array body") { [1, 2] }, .refused(.unsupportedBody)),
        (Body("Int-keyed dictionary") { [1: "height"] }, .refused(.unsupportedBody)),
    ])
    func decodesDictionaries(body: Body, expected: Outcome) {
        #expect(Self.outcome(body.make()) == expected)
    }

    @Test("JSONSerialization's numbers and booleans are told apart on this platform")
    func jsonSerializationValues() throws {
        let object = try JSONSerialization.jsonObject(with: Data(#"{"action":"height","data":true}"#.utf8))
        #expect(Self.outcome(object) == .refused(.wrongType))
        let number = try JSONSerialization.jsonObject(with: Data(#"{"action":"height","data":1}"#.utf8))
        #expect(Self.outcome(number) == .message(.height(1)))
    }

    @Test("a height is applied only above 100 points", arguments: [
        (0.0, nil), (50.0, nil), (100.0, nil), (100.5, 100.5), (101.0, 101.0), (812.0, 812.0),
    ] as [(Double, Double?)])
    func appliedHeight(height: Double, applied: Double?) {
        #expect(BridgeMessage.height(height).appliedHeight == applied)
    }

    @Test("messages other than height never resize the web view", arguments: [
        BridgeMessage.displayText("500"), .deepLink(product), .openURL(url("https://www.example.org/")),
    ])
    func noHeight(message: BridgeMessage) {
        #expect(message.appliedHeight == nil)
    }
}
