/// A horizontally paging carousel: equal cards, equal gaps, each card centred in the container when
/// the carousel rests on it (the layout of a typical iPhone card carousel; defaults 300/10/390 pt).
///
/// Card `k` spans content x `[inset + k·pitch, inset + k·pitch + cardWidth]` with
/// `inset = (container − cardWidth) / 2` and `pitch = cardWidth + spacing`; the carousel rests on card
/// `k` at offset `k·pitch`. A card is *fully visible* (visible fraction 1.0, what the apps read from their
/// layout's visible-items callback) when it lies inside `[offset, offset + container]`, i.e. when
/// `|k·pitch − offset| ≤ inset`. The fully visible card nearest the centre is the one reported; when the
/// card nearest the centre is not fully visible, no card is (every other card is farther from the centre).
public struct CarouselGeometry: Sendable, Equatable {
    public var cardWidth: Double
    public var spacing: Double
    public var container: Double

    public init(cardWidth: Double = 300, spacing: Double = 10, container: Double = 390) {
        self.cardWidth = cardWidth
        self.spacing = spacing
        self.container = container
    }

    /// Why this geometry cannot show a whole card, or nil when it can.
    public var problem: String? {
        if !(cardWidth > 0) || !cardWidth.isFinite { return "card width must be a positive number" }
        if !(spacing >= 0) || !spacing.isFinite { return "spacing must be a non-negative number" }
        if !(container >= cardWidth) || !container.isFinite {
            return "container (\(container)) must be at least the card width (\(cardWidth))"
        }
        return nil
    }

    public var pitch: Double { cardWidth + spacing }
    public var inset: Double { (container - cardWidth) / 2 }

    /// The offset at which the carousel rests on card `index`.
    public func offset(of index: Int) -> Double { Double(index) * pitch }

    /// The fully visible card at scroll `offset` among `count` cards, or nil. Ties go to the lower index.
    public func fullyVisibleCard(at offset: Double, count: Int) -> Int? {
        guard offset.isFinite else { return nil }
        let k = (offset / pitch - 0.5).rounded(.up)
        guard k >= 0, k < Double(count), abs(k * pitch - offset) <= inset else { return nil }
        return Int(k)
    }
}
