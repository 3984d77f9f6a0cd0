/// The elements of sorted, duplicate-free `old` missing from `new`, and those of `new` missing from `old`.
func sortedDifference<T>(old: [T], new: [T], compare: (T, T) -> Int) -> (removed: [T], added: [T]) {
    if old.isEmpty { return ([], new) }
    if new.isEmpty { return (old, []) }
    var removed: [T] = []
    var added: [T] = []
    var i = 0
    var j = 0
    while i < old.count, j < new.count {
        let c = compare(old[i], new[j])
        if c == 0 {
            i += 1
            j += 1
        } else if c < 0 {
            removed.append(old[i])
            i += 1
        } else {
            added.append(new[j])
            j += 1
        }
    }
    removed.append(contentsOf: old[i...])
    added.append(contentsOf: new[j...])
    return (removed, added)
}
