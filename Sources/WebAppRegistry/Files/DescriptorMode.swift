import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The mode of an open file (`fstat` on its descriptor): type and permission bits of the
/// bytes being read, not of whatever a path names by the time it is checked. One place for
/// the keyring and registry loaders and the CLI's `file:` secrets, and for C's `struct stat`, which more
/// than one module declares (with member import visibility a caller elsewhere would have to
/// name whichever module its build happens to find first).
package enum DescriptorMode {
    /// `S_IFMT`: the file-type bits of a mode.
    package static let typeMask: UInt32 = 0o170000
    /// `S_IFREG`: a regular file.
    package static let regularFile: UInt32 = 0o100000

    /// The mode of `descriptor`, or `nil` when `fstat` fails.
    package static func of(_ descriptor: Int32) -> UInt32? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return UInt32(status.st_mode)
    }

    /// Whether `mode` is a regular file's.
    package static func isRegularFile(_ mode: UInt32) -> Bool { mode & typeMask == regularFile }
}
