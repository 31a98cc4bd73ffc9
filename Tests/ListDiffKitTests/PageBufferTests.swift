import Testing
@testable import ListDiffKit

/// `PageBuffer.append(moving:)`, which joins the tables of a scan's parts by moving the
/// later part's pages rather than copying them: every element lands where a copy puts it,
/// whatever the element's size and wherever the first buffer's last page ends.
@Suite struct PageBufferTests {
    /// A buffer of `count` elements, element `i` made from `i` and `seed`.
    static func filled<T: BitwiseCopyable>(_ count: Int, capacity: Int, seed: Int, _ make: (Int) -> T) -> PageBuffer<T> {
        let buffer = PageBuffer<T>(capacity: capacity)
        for i in 0..<count { buffer.append(make(i &* 31 &+ seed)) }
        return buffer
    }

    static func check<T: Equatable & BitwiseCopyable>(_ make: @escaping (Int) -> T, heads: [Int], tail: Int, capacity: Int) {
        for head in heads {
            let first = filled(head, capacity: capacity, seed: 1, make)
            let second = filled(tail, capacity: tail + 1000, seed: 7, make)
            first.append(moving: second)
            #expect(first.count == head + tail)
            #expect(second.count == 0)
            var wrong = 0
            for i in 0..<head where first[i] != make(i &* 31 &+ 1) { wrong += 1 }
            for i in 0..<tail where first[head + i] != make(i &* 31 &+ 7) { wrong += 1 }
            #expect(wrong == 0, "head \(head): \(wrong) elements wrong")
            // The buffer goes on as any other: appends after the moved pages, then a move
            // of it all to larger pages.
            first.append(make(-1))
            first.reserve(first.capacity * 2)
            #expect(first[head + tail] == make(-1))
            #expect(first[0] == make(1) || head == 0)
            #expect(first[head + tail - 1] == make((tail - 1) &* 31 &+ 7))
            // The emptied buffer is usable again.
            second.append(make(5))
            #expect(second.count == 1 && second[0] == make(5))
        }
    }

    /// Element sizes of 16, 8 and 4 bytes; the first buffer's end at the start of a page,
    /// in its middle and just before its end; tables of several MiB, moved.
    @Test func movedPagesHoldEveryElement() {
        let heads = [0, 512, 1000, 4095, 300_001]
        Self.check(
            { Hash128(a: UInt64(truncatingIfNeeded: $0), b: ~UInt64(truncatingIfNeeded: $0)) }, heads: heads, tail: 200_003,
            capacity: 1 << 20)
        Self.check({ $0 }, heads: heads, tail: 400_007, capacity: 1 << 20)
        Self.check({ UInt32(truncatingIfNeeded: $0) }, heads: heads, tail: 700_001, capacity: 1 << 21)
    }

    /// Too small to move (copied), and a first buffer without room for the moved pages
    /// (grown, then copied): the same elements.
    @Test func copiedWhenNotMoved() {
        Self.check({ $0 }, heads: [0, 3, 1000], tail: 1000, capacity: 1 << 20)
        Self.check({ $0 }, heads: [10, 200_000], tail: 300_000, capacity: 200_000)
    }
}

/// `discard(keeping:)` and `SpareMappings`: a buffer made on a mapping let go holds zeros, as
/// a fresh mapping does, whatever the buffer before it wrote.
@Suite struct SpareMappingTests {
    @Test func bufferOnASpareMappingIsZeroed() {
        for (size, wanted) in [(1 << 18, 200_000), (1 << 18, 1 << 18), (300_000, 150_000)] {
            let dirty = PageBuffer<UInt64>(capacity: size)
            for i in 0..<size { dirty.append(~UInt64(i)) }
            dirty.discard(keeping: true)
            #expect(dirty.count == 0)
            let fresh = PageBuffer<UInt64>(zeroed: wanted)
            var nonzero = 0
            for i in 0..<wanted where fresh[i] != 0 { nonzero += 1 }
            #expect(nonzero == 0, "\(nonzero) of \(wanted) elements not zero")
            for i in 0..<wanted { fresh[i] = UInt64(i) }
            #expect(fresh[wanted - 1] == UInt64(wanted - 1))
            // The table grows on as any other.
            fresh.append(7)
            #expect(fresh.count == wanted + 1 && fresh[wanted] == 7)
            SpareMappings.handBack()
        }
    }
}
