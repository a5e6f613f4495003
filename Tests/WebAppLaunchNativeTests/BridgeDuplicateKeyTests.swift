import Foundation
import Testing
import WebAppLaunchNative

/// Issue 12 (info): JSON parsers silently keep one of two equal keys, so `{"action":"displayText",
/// "action":"openUrl",…}` meant whatever the parser chose. A bridge message with a duplicate key
/// in any object is refused.
@Suite("BridgeMessage refuses JSON objects with duplicate keys")
struct BridgeDuplicateKeyTests {
    @Test("a duplicate key at any level, however it is spelt, is refused as duplicate_key", arguments: [
        #"{"action":"displayText","action":"openUrl","data":"https://evil.example/"}"#,
        #"{"action":"displayText","data":"a","data":"b"}"#,
        #"{"type":"height","value":300,"value":50}"#,
        #"{"type":"height","type":"height","value":300}"#,
        #"{"action":"displayText","\u0061ction":"deeplink","data":"navidapro://healthmagazin/details"}"#,
        #"{"action":"displayText","data":"x","d\u0061t\u0061":"y"}"#,
        #"{"\u0061\u0063\u0074\u0069\u006f\u006e":"displayText","action":"displayText","data":"x"}"#,
        #"{"action":"displayText","data":{"a":1,"a":2}}"#,
        #"{"action":"displayText","data":[{"k":1},{"k":2,"k":3}]}"#,
        #"{"action":"displayText","data":{"outer":{"inner":1,"in\u006eer":2}}}"#,
        #"{"action":"displayText","data":"x","caf\u00e9":1,"cafe\u0301":2}"#,
        #"{"action":"displayText","data":"x","\ud83d\ude00":1,"😀":2}"#,
        "{\"action\" : \"displayText\" ,\n \"data\" : \"x\" , \"data\"\t: \"x\"}",
    ])
    func refusesDuplicates(json: String) {
        #expect(BridgeMessageTests.outcome(json) == .refused(.duplicateKey))
        #expect(BridgeMessageTests.outcome(Data(json.utf8)) == .refused(.duplicateKey))
    }

    @Test("equal strings that are values, not keys, and equal keys in different objects are fine", arguments: [
        (#"{"action":"displayText","data":"action"}"#, BridgeMessage.displayText("action")),
        (#"{"data":"data","action":"displayText"}"#, .displayText("data")),
        (#"{"action":"displayText","data":"{\"action\":1,\"action\":2}"}"#, .displayText(#"{"action":1,"action":2}"#)),
        (#"{"action":"displayText","data":"say \"data\":\"x\""}"#, .displayText(#"say "data":"x""#)),
    ])
    func acceptsDistinctKeys(json: String, expected: BridgeMessage) {
        #expect(BridgeMessageTests.outcome(json) == .message(expected))
    }

    @Test("nested objects that repeat a key of their parent are not duplicates of it")
    func nestedRepeatIsNotDuplicate() {
        // Refused for its type (data must be a string), not as a duplicate.
        #expect(BridgeMessageTests.outcome(#"{"action":"displayText","data":{"action":1,"data":2}}"#) == .refused(.wrongType))
    }
}
