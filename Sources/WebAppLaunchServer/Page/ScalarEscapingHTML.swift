import Mustache
import WebAppLaunchMiddleware

/// swift-mustache's content type for every template of this server: `{{value}}` is escaped
/// with ``HTMLEscaping/escape(_:)``, per Unicode scalar.
///
/// swift-mustache's built-in `HTML` type escapes per `Character`, so a `<` joined to a
/// neighbouring scalar (a Prepend character before it, a combining mark after it) slipped
/// through raw. Every template here starts with ``pragma`` to use this type instead; a test
/// checks that none is without it.
struct ScalarEscapingHTML: MustacheContentType {
    /// The name the type is registered under.
    static let name = "HTML_PER_SCALAR"
    /// The first line of every template: selects this content type.
    static let pragma = "{{% CONTENT_TYPE: \(name)}}"

    func escapeText(_ text: String) -> String {
        HTMLEscaping.escape(text)
    }

    /// Registers the type once, before the first template is parsed.
    static let registered: Void = {
        MustacheContentTypes.register(ScalarEscapingHTML(), named: name)
    }()

    /// Parses one of this server's templates with the per-scalar content type.
    /// - Parameter text: The template, without the pragma (it is added here).
    /// - Returns: The parsed template.
    static func template(_ text: String) -> MustacheTemplate {
        _ = registered
        do {
            return try MustacheTemplate(string: pragma + text)
        } catch {
            fatalError("a built-in template does not parse: \(error)")
        }
    }
}
