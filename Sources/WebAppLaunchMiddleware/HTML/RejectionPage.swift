
/// The short page a rejected launch gets, and the style it carries.
///
/// Its text comes from fixed server strings, and it is still escaped per scalar like every
/// other HTML this package writes, so a later change that passes input through cannot inject
/// markup.
public enum RejectionPage {
    /// The page's only style; a Content-Security-Policy allows it by ``styleHashSource``.
    public static let style = """
    body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 1.25rem; max-width: 40rem; }
    h1 { font-size: 1.5rem; } .muted { color: #667; }
    """

    /// The CSP source expression for ``style``: `'sha256-…'` in standard base64.
    public static var styleHashSource: String { CSPHash.source(for: style) }

    /// The page.
    /// - Parameters:
    ///   - title: The headline.
    ///   - reason: The generic reason code (`invalid`, `expired`, `already_used`).
    ///   - hint: What the user can do.
    /// - Returns: The HTML document.
    public static func html(title: String, reason: String, hint: String) -> String {
        let title = HTMLEscaping.escape(title)
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,"><title>\(title)</title><style>\(style)</style></head>
        <body><h1>\(title)</h1><p class="muted">Reason: <code id="reason">\(HTMLEscaping.escape(reason))</code></p><p>\(HTMLEscaping.escape(hint))</p></body></html>
        """
    }
}
