/// The live dashboard's files (`Assets/`: HTML, CSS and JavaScript, no
/// external asset), compiled into the binary by Plugins/EmbedTextPlugin (as
/// `EmbeddedText.<name>_<extension>`), so the `warmer` binary alone
/// serves them at `/`, `/ui` and `/ui/NAME` (docs/dashboard.md).
enum DashboardAsset {
    /// The page: what `/`, `/ui` and `/ui/` serve.
    static let page = "index.html"

    /// Every file by its name under `/ui/`, with its content type.
    static let all: [String: (contentType: String, bytes: [UInt8])] = [
        "index.html": ("text/html; charset=utf-8", Array(EmbeddedText.index_html.utf8)),
        "dashboard.css": ("text/css; charset=utf-8", Array(EmbeddedText.dashboard_css.utf8)),
        "api.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.api_js.utf8)),
        "sse.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.sse_js.utf8)),
        "charts.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.charts_js.utf8)),
        "overview.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.overview_js.utf8)),
        "batch.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.batch_js.utf8)),
        "lists.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.lists_js.utf8)),
        "dashboard.js": ("text/javascript; charset=utf-8", Array(EmbeddedText.dashboard_js.utf8)),
    ]

    /// The file named `name` (`""` or `index.html` for the page), or nil
    /// when there is none by that name.
    static func named(_ name: String) -> (contentType: String, bytes: [UInt8])? {
        all[name.isEmpty ? page : name]
    }
}
