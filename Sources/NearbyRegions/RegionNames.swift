/// How a typed region name matches a region: the words of the query must appear, in order, among
/// the region's names from the 시도 down, and the last word must be the region's own name
/// (`종로구`, `서울 종로구`, `서울특별시 종로구`, `경기 수원시`, `수원시 장안구`, `서울 청운동`).
/// A 시도 also answers to its short and its former names (`서울`, `강원`, `강원도`).
enum RegionNames {
    /// Short and former names of each 시도, by today's full name.
    static let sidoAliases: [String: [String]] = [
        "서울특별시": ["서울", "서울시"], "부산광역시": ["부산", "부산시"], "대구광역시": ["대구", "대구시"],
        "인천광역시": ["인천", "인천시"], "광주광역시": ["광주", "광주시"], "대전광역시": ["대전", "대전시"],
        "울산광역시": ["울산", "울산시"], "세종특별자치시": ["세종", "세종시"], "경기도": ["경기"],
        "강원특별자치도": ["강원", "강원도"], "충청북도": ["충북"], "충청남도": ["충남"],
        "전북특별자치도": ["전북", "전라북도"], "전라남도": ["전남"], "경상북도": ["경북"], "경상남도": ["경남"],
        "제주특별자치도": ["제주", "제주도"],
    ]

    static func word(_ word: String, names token: String, isSido: Bool) -> Bool {
        word == token || (isSido && sidoAliases[token]?.contains(word) == true)
    }

    static func matches(query: [String], path: [String]) -> Bool {
        guard let last = query.last, let own = path.last, word(last, names: own, isSido: path.count == 1) else {
            return false
        }
        // The earlier words, in order, among the earlier names (greedy matching is exact for a subsequence).
        var i = 0
        for (n, token) in path.dropLast().enumerated() where i < query.count - 1 {
            if word(query[i], names: token, isSido: n == 0) { i += 1 }
        }
        return i == query.count - 1
    }
}
