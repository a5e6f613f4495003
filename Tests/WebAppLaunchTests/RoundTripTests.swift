import Foundation
import Testing
@testable import WebAppLaunch
import WebAppRegistry

@Suite("Round trips with awkward but valid data")
struct RoundTripTests {
    static let users: [LaunchUser] = [
        LaunchUser(accessToken: "eyJhbGciOiJSUzI1NiJ9.e30.sig", firstName: "Jürgen", lastName: "Groß", kvnumber: "A123456780"),
        LaunchUser(accessToken: "t", firstName: "Zoë-Chloé", lastName: "O'Brien-Müller", kvnumber: "A123456780"),
        LaunchUser(accessToken: String(repeating: "Ab9-._~+/", count: 455), firstName: "Ærøskøbing", lastName: "d'Alembert", kvnumber: "A123456780"),
        LaunchUser(accessToken: "x", firstName: "李", lastName: "Ünal", kvnumber: "Z999999997"),
    ]

    @Test("every mode and awkward user round-trips to the same claims", arguments: LaunchMode.allCases, users)
    func roundTrip(mode: LaunchMode, user: LaunchUser) throws {
        let url = try Fixtures.signer.launchURL(for: "healthmagazin", user: user, mode: mode, now: Fixtures.now)
        let query = url[url.index(after: url.firstIndex(of: "?")!)...]
        let launch = try Fixtures.verifier().verify(query: query, now: Fixtures.now)
        #expect(launch.claims.accessToken == user.accessToken)
        #expect(launch.claims.firstName == user.firstName)
        #expect(launch.claims.lastName == user.lastName)
        #expect(launch.claims.kvnr.value == user.kvnumber)
        #expect(launch.header.mode == mode)
        #expect(launch.header.kid == "current")
        #expect(launch.header.appID == "healthmagazin")
        #expect(launch.header.audience == "https://magazin.example/app")
        #expect(launch.header.expiresAt == Fixtures.nowSeconds + 60)
        #expect(launch.replayDeadline == Fixtures.nowSeconds + 60 + ReplayRetention.maximumSkew + ReplayRetention.margin)
    }

    @Test("a minted launch reports the expiry written into its token, for any lifetime (issue 34)", arguments: [1, 60, 299] as [UInt64])
    func launchReportsItsExpiry(lifetime: UInt64) throws {
        let launch = try Fixtures.signer.launch(for: "healthmagazin", user: Fixtures.user, lifetime: lifetime, now: Fixtures.now)
        let verified = try Fixtures.verifier().verify(url: launch.url, now: Fixtures.now)
        #expect(launch.expiresAt == verified.header.expiresAt)
        #expect(launch.expiresAt == Fixtures.nowSeconds + lifetime)
        #expect(UInt64(launch.expiryDate.timeIntervalSince1970) == launch.expiresAt)
    }

    @Test("a registered URL with its own query parameters keeps them and still verifies")
    func registeredQuery() throws {
        let url = try Fixtures.signer.launchURL(for: "bonus", user: Fixtures.user, now: Fixtures.now)
        #expect(url.hasPrefix("https://bonus.example/start?tenant=demo&lang=de&launch="))
        let launch = try Fixtures.verifier(Fixtures.bonus).verify(url: url, now: Fixtures.now)
        #expect(launch.header.audience == "https://bonus.example/start?tenant=demo&lang=de")
    }

    @Test("names are NFC-normalised when minted")
    func nfcOnMint() throws {
        let decomposed = LaunchUser(accessToken: "t", firstName: "Ju\u{0308}rgen", lastName: "Gross", kvnumber: "A123456780")
        let token = try Fixtures.signer.launchToken(for: "healthmagazin", user: decomposed, now: Fixtures.now)
        let launch = try Fixtures.verifier().verify(token: token, now: Fixtures.now)
        #expect(Array(launch.claims.firstName.utf8) == Array("J\u{00FC}rgen".utf8))
    }

    @Test("a 4 KB access token round-trips in sealed mode")
    func largeAccessToken() throws {
        var user = Fixtures.user
        user.accessToken = String(repeating: "a", count: 4096)
        let token = try Fixtures.signer.launchToken(for: "healthmagazin", user: user, now: Fixtures.now)
        #expect(try Fixtures.verifier().verify(token: token, now: Fixtures.now).claims.accessToken.count == 4096)
    }

    @Test("two mints never share a nonce or token")
    func freshNonces() throws {
        let first = try Fixtures.signer.launchToken(for: "healthmagazin", user: Fixtures.user, now: Fixtures.now)
        let second = try Fixtures.signer.launchToken(for: "healthmagazin", user: Fixtures.user, now: Fixtures.now)
        #expect(first != second)
        let verifier = Fixtures.verifier()
        #expect(try verifier.verify(token: first, now: Fixtures.now).header.nonce != verifier.verify(token: second, now: Fixtures.now).header.nonce)
    }
}
