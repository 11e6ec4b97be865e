/// The live dashboard's files (`Assets/`: HTML, CSS and JavaScript, no
/// external asset), compiled into the binary by SwiftPM (`embedInCode`, as
/// `PackageResources.<name>_<extension>`), so the `warmer` binary alone
/// serves them at `/`, `/ui` and `/ui/NAME` (docs/dashboard.md).
enum DashboardAsset {
    /// The page: what `/`, `/ui` and `/ui/` serve.
    static let page = "index.html"

    /// Every file by its name under `/ui/`, with its content type.
    static let all: [String: (contentType: String, bytes: [UInt8])] = [
        "index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "dashboard.css": ("text/css; charset=utf-8", PackageResources.dashboard_css),
        "api.js": ("text/javascript; charset=utf-8", PackageResources.api_js),
        "sse.js": ("text/javascript; charset=utf-8", PackageResources.sse_js),
        "charts.js": ("text/javascript; charset=utf-8", PackageResources.charts_js),
        "overview.js": ("text/javascript; charset=utf-8", PackageResources.overview_js),
        "batch.js": ("text/javascript; charset=utf-8", PackageResources.batch_js),
        "lists.js": ("text/javascript; charset=utf-8", PackageResources.lists_js),
        "dashboard.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_js),
    ]

    /// The file named `name` (`""` or `index.html` for the page), or nil
    /// when there is none by that name.
    static func named(_ name: String) -> (contentType: String, bytes: [UInt8])? {
        all[name.isEmpty ? page : name]
    }
}
