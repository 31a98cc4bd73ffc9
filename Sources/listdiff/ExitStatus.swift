/// listdiff's exit statuses, as diff(1)'s.
enum ExitStatus: Int32 {
    /// The inputs hold the same records.
    case same = 0
    /// The inputs differ.
    case different = 1
    /// Trouble: bad usage, an unreadable or malformed input, a bad key, a failed write.
    case trouble = 2
}
