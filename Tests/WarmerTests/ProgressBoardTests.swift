import Testing
@testable import Warmer

/// `warmer watch`'s progress bars, whatever the batch hash holds.
@Suite struct ProgressBoardTests {
    @Test(arguments: [(0, 10, 0), (5, 10, 15), (10, 10, 30), (11, 10, 30), (-5, 10, 0), (Int.max, 7, 30), (3, 0, 30)])
    func theBarStaysWithinItsWidth(_ ended: Int, _ total: Int, _ cells: Int) {
        // Negative or huge counters once trapped (a negative repeat count, an overflowing product).
        #expect(ProgressBoard.filledCells(ended: ended, total: total, width: 30) == cells)
    }
}
