import WebAppLaunchMiddleware

/// The page's static parts: its inline script and style, and the Content-Security-Policy
/// that allows exactly those two by hash.
///
/// The script and style contain no user data, so their hashes are fixed at build time and
/// the CSP needs no per-response nonce; user data reaches the page only as escaped HTML
/// text and attributes rendered by ``PageRenderer``.
public enum PageAssets {
    /// The page's script: wires the bridge buttons, the deep-link fallback and the height
    /// report. No inline event handlers; everything is attached here.
    public static let script = #"""
    (function () {
      "use strict";
      var log = document.getElementById("bridge-log");
      function bridge() {
        var handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.AppInterface;
        return handler && typeof handler.postMessage === "function" ? handler : null;
      }
      function show(text) {
        var item = document.createElement("li");
        item.textContent = text;
        log.appendChild(item);
        document.getElementById("bridge-fallback").hidden = false;
      }
      function post(message) {
        var handler = bridge();
        if (handler) {
          handler.postMessage(message);
        } else {
          show("No app bridge here. The app would receive: " + JSON.stringify(message));
        }
      }
      Array.prototype.forEach.call(document.querySelectorAll("[data-bridge-action]"), function (button) {
        button.addEventListener("click", function () {
          post({ action: button.getAttribute("data-bridge-action"), data: button.getAttribute("data-bridge-data") });
        });
      });
      Array.prototype.forEach.call(document.querySelectorAll("a[data-deeplink]"), function (link) {
        link.addEventListener("click", function (event) {
          if (!bridge()) {
            event.preventDefault();
            var href = link.getAttribute("href");
            show("Deep link for the app to route: " + href);
            explainNavigation(href);
          }
        });
      });
      // Development servers say what the app's NavigationPolicy would decide; elsewhere the
      // route does not exist and nothing more is shown.
      function explainNavigation(href) {
        if (!window.fetch) { return; }
        var app = document.body.getAttribute("data-app-id");
        fetch("/console/navigation?app=" + encodeURIComponent(app) + "&url=" + encodeURIComponent(href))
          .then(function (response) { return response.ok ? response.json() : null; })
          .then(function (answer) {
            if (answer) { show("NavigationPolicy: " + answer.decision + " (" + answer.detail + ")"); }
          })
          .catch(function () {});
      }
      var lastHeight = 0;
      // The content's own height (scrollHeight never drops below the viewport), reported
      // only once a bridge has received it, so a bridge that appears later still gets it.
      function reportHeight() {
        var height = Math.ceil(document.body.getBoundingClientRect().height);
        var handler = bridge();
        if (height === lastHeight || !handler) { return; }
        handler.postMessage({ type: "height", value: height });
        lastHeight = height;
      }
      if (window.ResizeObserver) { new ResizeObserver(reportHeight).observe(document.body); }
      reportHeight();
    })();
    """#

    /// The page's style.
    public static let style = #"""
    :root { color-scheme: light dark; --accent: #0a6e4f; }
    body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; padding: 1.25rem; max-width: 40rem; }
    h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
    .muted { color: #667; }
    .card { border: 1px solid #ccd; border-radius: .75rem; padding: 1rem; margin: 1rem 0; }
    .card h2, .card h3 { margin-top: 0; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
    dt { font-weight: 600; }
    button { font: inherit; padding: .6rem 1rem; margin: .25rem .25rem .25rem 0; border-radius: .5rem; border: 0; background: var(--accent); color: #fff; }
    a { color: var(--accent); }
    code { word-break: break-all; }
    input[type=text] { font: inherit; width: 100%; box-sizing: border-box; padding: .5rem; }
    #bridge-fallback { background: #fff7d6; color: #332; border-radius: .5rem; padding: .5rem 1rem; }
    """#

    /// The Content-Security-Policy of every response: nothing but the page's own script and
    /// style (and the rejection page's style), no plugins, no framing, forms only to this origin.
    public static let contentSecurityPolicy: String = [
        "default-src 'none'",
        "script-src \(CSPHash.source(for: script))",
        "style-src \(CSPHash.source(for: style)) \(RejectionPage.styleHashSource)",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ].joined(separator: "; ")
}
