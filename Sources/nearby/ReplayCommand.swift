import ArgumentParser
import Foundation
import NearbyReplay

/// `nearby replay`: the replay server the sync's tests use, as a process of its own for
/// `scripts/bench-sync.sh`. Hidden: it serves generated places, nothing real. `GET /replay/churn?count=N`
/// changes, hides and adds N of them (`ReplayServer`), for the sync that follows.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve generated TourAPI places on a loopback port (for scripts/bench-sync.sh).",
        shouldDisplay: false)

    @Option(help: "Generated places.")
    var places = 1000

    @Option(help: "Generated Kakao documents (FD6, around 서울 종로구).")
    var kakao = 0

    @Option(help: "Centres the Kakao documents gather around, as a city's do (0: spread evenly).")
    var kakaoCentres = 0

    @Option(help: "Kakao's REST API key expected (default: any).")
    var kakaoKey: String?

    @Option(help: "The port (0: a free one; the port is printed on stdout).")
    var port = 0

    @Option(help: "The service key expected (default: any).")
    var serviceKey: String?

    func run() throws {
        var catalog = ReplayCatalog.generated(count: places)
        catalog.addGeneratedKakao(
            count: kakao, group: "FD6", minX: 126.96, minY: 37.56, maxX: 127.01, maxY: 37.6, centres: kakaoCentres)
        let server = ReplayServer(catalog: catalog, serviceKey: serviceKey, kakaoKey: kakaoKey)
        try server.start(port: port)
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        while true { sleep(3600) }
    }
}
