import Testing
import WebAppLaunchMiddleware

/// The one reading of `Cookie` fields the session lookup and the gate's cookie removal share.
@Suite("Cookie pairs: one byte-level reading of Cookie fields")
struct CookiePairsTests {
    static func pairs(_ value: String) -> [String] {
        CookiePairs(value).map { pair in pair.value.map { "\(pair.name)=\($0)" } ?? "\(pair.name)" }
    }

    @Test("pairs split on `;`, leading spaces and tabs dropped, empty pieces skipped; trailing blanks and inner `=` kept")
    func splitting() {
        #expect(Self.pairs("a=1; b=2") == ["a=1", "b=2"])
        #expect(Self.pairs(" \ta=1;;  ;b=x=y ; c") == ["a=1", "b=x=y ", "c"])
        #expect(Self.pairs("") == [])
        #expect(Self.pairs(" ; ;") == [])
        #expect(Self.pairs("n=") == ["n="])
        #expect(CookiePairs("bare").first { _ in true }?.value == nil)
        // Bytes outside ASCII before a separator: every pair still starts and ends where its bytes do.
        #expect(Self.pairs("\u{1F600}=\u{E9}; caf\u{E9}=x=\u{FC};\u{E4}") == ["\u{1F600}=\u{E9}", "caf\u{E9}=x=\u{FC}", "\u{E4}"])
        let slice = "x\u{E9}=1; b=2; c=3".dropFirst(6)
        #expect(CookiePairs(slice).map(\.text) == ["b=2", "c=3"], "a field that is a slice of another string")
        #expect(CookiePairs(" x=1 ").map(\.text) == ["x=1 "])
    }

    @Test("the first pair with the name and a value wins, across fields in order; names match byte for byte")
    func firstValue() {
        #expect(CookiePairs.firstValue(named: "s", in: ["a=1; s=first; s=second", "s=third"]) == "first")
        #expect(CookiePairs.firstValue(named: "s", in: ["a=1", "s; s=second"]) == "second", "a bare `s` has no value")
        #expect(CookiePairs.firstValue(named: "s", in: ["S=1; s =2; xs=3"]) == nil, "no folding, no trimming after the name")
        #expect(CookiePairs.firstValue(named: "s", in: [String]()) == nil)
        // U+00E9 precomposed and decomposed are different bytes: no canonical equivalence.
        #expect(CookiePairs.firstValue(named: "caf\u{E9}", in: ["cafe\u{301}=1"]) == nil)
        #expect(CookiePairs.firstValue(named: "caf\u{E9}", in: ["caf\u{E9}=\u{1F600}"]) == "\u{1F600}")
    }
}
