/// The fuzz targets: what each fuzzes, its corpus folder, and the property
/// every input must keep. `scripts/fuzz.sh` runs one libFuzzer binary per
/// target (`Fuzz/Targets/<Name>`); `FuzzCorpusReplayTests` replays every
/// file of `Fuzz/Corpus/<folder>/` and `Fuzz/Crashers/<folder>/` through the
/// same property, so `swift test` keeps every crasher fixed without libFuzzer.
public enum FuzzTarget: String, Sendable, CaseIterable {
    /// `ProcessingSpec(parsing:)`: see `ProcessingSpecProperty`.
    case processingSpec = "processing-spec"
    /// `URLList.isValid` and `URLList(bytes:)`: see `URLListProperty`.
    case urlList = "url-list"
    /// `IntakeDocument(parsing:)` and `CJSONDecoder`: see `IntakeDocumentProperty`.
    case intakeDocument = "intake-document"

    /// The folder of the target's seeds and crashers, under `Fuzz/Corpus/` and `Fuzz/Crashers/`.
    public var folder: String { rawValue }

    /// What is wrong with the code under test for `input`, or nil when the
    /// property holds. (A crash is wrong too, of course: libFuzzer sees it.)
    public func violation(for input: [UInt8]) -> String? {
        switch self {
        case .processingSpec: ProcessingSpecProperty.violation(for: input)
        case .urlList: URLListProperty.violation(for: input)
        case .intakeDocument: IntakeDocumentProperty.violation(for: input)
        }
    }

    /// Runs the property for libFuzzer: a violation stops the process, and
    /// libFuzzer saves the input that caused it.
    public func fuzz(_ input: [UInt8]) {
        if let violation = violation(for: input) {
            fatalError("\(rawValue) property violated: \(violation)")
        }
    }
}
