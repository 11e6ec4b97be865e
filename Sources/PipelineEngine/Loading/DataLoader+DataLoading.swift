extension DataLoader: DataLoading {
    /// The configuration's `maximumBodySize`.
    public var maximumBodySize: Int64 { configuration.maximumBodySize }
}
