import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of the regular file a path resolves to, with its permission bits, both taken
/// through one descriptor (`fstat`, not `lstat`): the mode judged is the mode of the bytes
/// read, even if the path changes meanwhile. A symlink is followed (Kubernetes mounts
/// secrets and certificates as links), and its target's mode is judged, never the link's
/// own (always 0777). `O_NONBLOCK` keeps a FIFO from blocking the open; it is then refused
/// as not a regular file.
///
/// One reading for every file whose permissions are part of the trust in it: a keyring
/// (nobody else may read it), a registry and the gate's trusted authorities (nobody else may
/// change them: whoever could would choose where identities go).
package struct RegularFileContents: Sendable {
    /// The file's bytes.
    package let data: Data
    /// Its permission bits (`mode & 0o7777`).
    package let permissions: UInt32

    /// Why a file could not be read.
    package enum Failure: Error, Sendable, Equatable {
        /// Nothing is at the path.
        case missing
        /// The path cannot be opened or read.
        case unreadable
        /// The path resolves to a directory, a FIFO, a device or a socket.
        case notRegularFile

        /// The reason in a few words, for an error that names the file.
        package var reason: String {
            switch self {
            case .missing: "no such file"
            case .unreadable: "cannot be read"
            case .notRegularFile: "not a regular file"
            }
        }
    }

    /// Reads the regular file `path` resolves to.
    /// - Parameter path: The file's path.
    /// - Throws: ``Failure``.
    package init(atPath path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw errno == ENOENT ? .missing : .unreadable }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let mode = DescriptorMode.of(descriptor), DescriptorMode.isRegularFile(mode) else { throw .notRegularFile }
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadable
        }
        permissions = mode & 0o7777
    }

    /// Whether anyone but the owner may read or write the file.
    package var isAccessibleByOthers: Bool { permissions & 0o077 != 0 }

    /// Whether anyone but the owner may change the file.
    package var isWritableByOthers: Bool { permissions & 0o022 != 0 }
}
