import Testing

@testable import NearbyBench

/// Expected values printed by CPython 3.11.7 (`random.Random`), e.g.
/// `python3 -c "import random; r = random.Random(42); print([r.random() for _ in range(5)])"`.
@Suite struct PythonRandomTests {
    @Test func randomAfterSeedingFromAnInt() {
        var r = PythonRandom(seed: 42)
        #expect(
            (0..<5).map { _ in r.random() }
                == [
                    0.6394267984578837, 0.025010755222666936, 0.27502931836911926, 0.22321073814882275,
                    0.7364712141640124,
                ])
        var zero = PythonRandom(seed: 0)
        #expect((0..<3).map { _ in zero.random() } == [0.8444218515250481, 0.7579544029403025, 0.420571580830845])
    }

    @Test func seedSignIsIgnoredAndWideSeedsUseTwoWords() {
        var negative = PythonRandom(seed: -42)
        #expect([negative.random(), negative.random()] == [0.6394267984578837, 0.025010755222666936])
        var wide = PythonRandom(seed: 1 << 40 + 5)  // 2**40 + 5
        #expect((0..<3).map { _ in wide.random() } == [0.5043802970418443, 0.2686044399723282, 0.9257865475671585])
        var max = PythonRandom(seed: Int.max)
        #expect([max.random(), max.random()] == [0.3166448820870279, 0.631259308253863])
        var min = PythonRandom(seed: Int.min)  // Python: Random(-2**63)
        #expect([min.random(), min.random()] == [0.5534639983914199, 0.9406144709090462])
    }

    @Test func getrandbitsOfSeveralWidths() {
        var r = PythonRandom(seed: 1)
        let ks = [0, 1, 7, 31, 32, 33, 53, 64, 1, 2]
        #expect(
            ks.map { r.getrandbits($0) }
                == [
                    0, 0, 72, 1_819_850_095, 3_445_702_192, 3_280_387_012, 1_062_116_443_042_876,
                    14_037_279_428_536_751_483, 0, 1,
                ])
    }

    @Test func randrange() {
        var r = PythonRandom(seed: 3)
        #expect((0..<8).map { _ in r.randrange(1, 1000) } == [244, 607, 558, 134, 379, 938, 619, 486])
        #expect((0..<8).map { _ in r.randrange(-5, 5) } == [4, -4, 4, -5, 2, -1, 3, -2])
        #expect(
            (0..<3).map { _ in r.randrange(0, 1 << 40) } == [1_033_872_278_406, 1_046_037_700_823, 334_410_543_585])
    }

    @Test func choice() {
        var r = PythonRandom(seed: 4)
        #expect((0..<8).map { _ in r.choice(0..<100) } == [30, 38, 13, 92, 50, 61, 19, 11])
        #expect((0..<8).map { _ in r.choice([0, 30, 100]) } == [0, 0, 30, 100, 30, 0, 0, 100])
    }

    /// `[r.gauss(0, 1) for _ in range(5)], r.random(), r.gauss(0, 1), r.gauss(10, 0.5)`: the fifth
    /// value's pair leaves one cached across the `random()` call.
    @Test func gaussKeepsItsSecondValueAcrossOtherCalls() {
        var r = PythonRandom(seed: 5)
        #expect(
            (0..<5).map { _ in r.gauss() }
                == [
                    -1.1788417512306717, -1.1481606807908016, 0.6694689143859696, -2.293910094631911,
                    -0.1433838383004689,
                ])
        #expect(r.random() == 0.029005228283614737)
        #expect(r.gauss(mu: 0, sigma: 1) == -2.2560772673958667)
        #expect(r.gauss(mu: 10, sigma: 0.5) == 8.829721291240169)
    }

    @Test func uniform() {
        var r = PythonRandom(seed: 6)
        #expect(
            (0..<3).map { _ in r.uniform(0, 653_184_000) } == [
                518_197_049.27177805, 536_887_229.1785685, 316_816_858.4104466,
            ])
        #expect(r.uniform(-1.5, 2.25) == -0.5189194389575328)
    }

    /// `r.choices(range(5), weights=[0.5, 1/3, 0.0, 2.0, 1e-3], k=20)`: a zero weight is never drawn.
    @Test func choicesWithWeights() {
        var r = PythonRandom(seed: 8)
        let cw = PythonRandom.cumulativeWeights([0.5, 1.0 / 3, 0.0, 2.0, 1e-3])
        #expect(
            (0..<20).map { _ in r.weightedIndex(cumulativeWeights: cw) }
                == [1, 3, 0, 3, 0, 1, 3, 1, 3, 3, 3, 3, 1, 3, 0, 1, 0, 1, 3, 3])
        #expect(PythonRandom.cumulativeWeights([0.1, 0.2, 0.3]) == [0.1, 0.30000000000000004, 0.6000000000000001])
    }

    /// Past the first 624 words the state is regenerated (`twist`); 10,000 draws cross it many times.
    /// Python: `r = random.Random(42)`, then the last of 10,000 `r.random()`.
    @Test func manyDrawsCrossTheStateRegeneration() {
        var r = PythonRandom(seed: 42)
        var last = 0.0
        for _ in 0..<10_000 { last = r.random() }
        #expect(last == 0.07291190181420792)
    }
}
