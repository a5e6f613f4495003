import NIOCore
import Testing
import WebAppLaunch
@testable import WebAppLaunchPostgres

/// The table holds an id as 16 bytes; what the store writes, it reads back as the same id.
@Suite("Claim ids as the table holds them")
struct InsertClaimsStatementTests {
    @Test("an id read back from its 16 bytes is the same id, and its bytes are the id's own, in order")
    func roundTrip() {
        let ids = [
            ReplayID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10),
            ReplayID(high: 0, low: .max),
            ReplayID(high: .max, low: 0),
        ]
        for id in ids {
            let buffer = InsertClaimsStatement.bytes(of: id)
            #expect(Array(buffer.readableBytesView) == id.bytes, "big-endian, high half first")
            #expect(InsertClaimsStatement.id(from: buffer) == id)
        }
    }

    @Test("a value of any other length is no id, and a buffer already partly read is read from its reader index")
    func otherLengths() {
        let id = ReplayID(high: 0x1122_3344_5566_7788, low: 0x99AA_BBCC_DDEE_FF00)
        var longer = InsertClaimsStatement.bytes(of: id)
        longer.writeInteger(UInt8(1))
        #expect(InsertClaimsStatement.id(from: longer) == nil)
        #expect(InsertClaimsStatement.id(from: ByteBuffer(bytes: id.bytes.dropLast())) == nil)
        #expect(InsertClaimsStatement.id(from: ByteBuffer()) == nil)
        var prefixed = ByteBuffer(bytes: [0xFF] + id.bytes)
        prefixed.moveReaderIndex(forwardBy: 1)
        #expect(InsertClaimsStatement.id(from: prefixed) == id)
    }
}
