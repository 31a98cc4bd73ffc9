/// The in-memory entry points: the values are written as text and diffed by the engine,
/// as files are. `Differ` itself, its settings and its matching, sit lower, with the engine.
extension Differ {
    /// Diffs two lists of records held in memory, matched by `key`.
    ///
    /// ```swift
    /// let changeset = try Differ().diff(old: oldRecords, new: newRecords, key: IdentityKey(parsing: ["id"]))
    /// ```
    ///
    /// - Throws: when a record has no usable key, or (under `DuplicatePolicy.error`) two
    ///   records of one list share a key.
    public func diff(old: [Value], new: [Value], key: IdentityKey, duplicates: DuplicatePolicy = .error)
        throws(ListDiffError) -> Changeset
    {
        try diff(old: .array(old), new: .array(new), key: key, duplicates: duplicates)
    }

    /// Diffs two values held in memory, each a list of records, an object of lists (one
    /// section per member) or a list of section objects, found as `options` says.
    ///
    /// The values run through the same engine as files do: they are written as JSON text
    /// (YAML when they hold a non-finite number, which JSON cannot spell) and read back, so
    /// that every rule and every error is the engine's. Errors name `old` or `new`, without
    /// a line and column, since the text is not the caller's.
    public func diff(
        old: Value, new: Value, key: IdentityKey, duplicates: DuplicatePolicy = .error, options: LayoutOptions = LayoutOptions()
    ) throws(ListDiffError) -> Changeset {
        let files = FileDiffer(key: key, differ: self, duplicates: duplicates, layout: options)
        let (oldFile, oldFormat) = try MappedFile.of(old, name: "old")
        let (newFile, newFormat) = try MappedFile.of(new, name: "new")
        do {
            return try files.diffOpened(oldFile, oldFormat, newFile, newFormat).changeset
        } catch {
            var error = error
            error.location = nil
            throw error
        }
    }
}
