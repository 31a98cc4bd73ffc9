/// listdiff's release, in one place: `listdiff --version` shows it, and every JSON
/// changeset names it in its `generator` member.
package enum ListDiffVersion {
    /// The release, as semantic versioning spells it.
    package static let current = "0.3.0"
    /// What a JSON changeset's `generator` member says.
    package static let generator = "listdiff " + current
}
