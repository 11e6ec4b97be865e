import ArgumentParser

/// How `WarmerLogHandler` writes a line (`--log-format`).
enum LogFormat: String, CaseIterable, Sendable {
    /// `2026-11-25T11:00:00.123Z info [worker] message key=value…`, for people.
    case text
    /// One JSON object per line, for log pipelines (Loki, Elasticsearch, jq).
    case json
}
