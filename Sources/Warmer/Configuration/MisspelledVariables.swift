/// `WARMER_*` environment variables that are no setting but nearly one
/// (`WARMER_CONCURENCY`): each is logged as a warning with the setting it
/// likely meant, since an ignored typo would otherwise leave a default in
/// force without a word. Variables far from every setting (the test
/// harness's `WARMER_TEST_*`, say) are left alone: the environment is shared.
enum MisspelledVariables {
    /// The misspelled variables in `environment`, each with the setting's variable it likely meant.
    static func find(in environment: [String: String]) -> [(given: String, meant: String)] {
        let known = Set(Settings.all.map(\.info.environmentName))
        return environment.keys.sorted().compactMap { name in
            guard name.hasPrefix("WARMER_"), !known.contains(name) else { return nil }
            let closest = known.map { ($0, distance(name, $0)) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
            guard let closest, closest.1 <= 2 else { return nil }
            return (name, closest.0)
        }
    }

    /// Levenshtein distance: the fewest single-character edits from `a` to `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
