/// A list's cells waiting for reuse, by reuse identifier, and the ones handed out while the data
/// source configures a cell: those it did not return must leave the tree, or they would stay
/// there hidden for ever. Main actor only, with its list.
@MainActor
struct ListReusePool {
    private var cells: [String: [ListCell]] = [:]
    private var handedOut: [ListCell] = []

    /// Cells waiting.
    var count: Int { cells.values.reduce(0) { $0 + $1.count } }

    /// A waiting cell of `identifier`, or nil; remembered as handed out.
    mutating func dequeue(_ identifier: String) -> ListCell? {
        guard var waiting = cells[identifier], let cell = waiting.popLast() else { return nil }
        cells[identifier] = waiting
        handedOut.append(cell)
        return cell
    }

    /// Keeps `cell` for reuse unless `limit` cells of its identifier already wait; whether it
    /// was kept.
    mutating func keep(_ cell: ListCell, limit: Int) -> Bool {
        guard cells[cell.reuseIdentifier, default: []].count < limit else { return false }
        cells[cell.reuseIdentifier, default: []].append(cell)
        return true
    }

    /// Puts `cell`, still showing, where the next dequeue of its identifier finds it first:
    /// a cell being reconfigured for its own item. Not counted against the limit.
    mutating func offer(_ cell: ListCell) {
        cells[cell.reuseIdentifier, default: []].append(cell)
    }

    /// Takes `cell` back out if it is still waiting.
    mutating func withdraw(_ cell: ListCell) {
        cells[cell.reuseIdentifier]?.removeAll { $0 === cell }
    }

    /// The cells handed out since the last call, forgotten.
    mutating func takeHandedOut() -> [ListCell] {
        defer { handedOut = [] }
        return handedOut
    }
}
