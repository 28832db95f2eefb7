import Foundation
import NearbyKit

/// What a TourAPI answer means, whatever shape it came in.
///
/// The public service answers errors in several shapes: the JSON envelope with another
/// `response.header.resultCode` than `0000` (status 200); the data.go.kr gateway's XML
/// `<OpenAPI_ServiceResponse><cmmMsgHeader>…<returnReasonCode>30</returnReasonCode>` even when JSON was
/// asked (status 200, 401 or 403); a flat `{"resultCode":…,"resultMsg":…}`; a plain-text
/// "Unexpected errors" page; HTTP 429 and 5xx. Codes a retry cannot fix stop the sync with what to do
/// (`advice`); the others are retried.
public enum TourAPIAnswer {
    /// The verdict on one answer of a list or detail operation asked with `_type=json`.
    public static func judge(_ answer: HTTPAnswer) -> Verdict {
        let text = String(decoding: answer.body.prefix(8192), as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        let retryAfter = SyncFetcher.retryAfter(answer.header("Retry-After"))
        if trimmed.hasPrefix("<") {
            if let code = tag("returnReasonCode", in: text) ?? tag("resultCode", in: text) {
                let message = tag("returnAuthMsg", in: text) ?? tag("errMsg", in: text) ?? tag("resultMsg", in: text)
                if code == "0000" || code == "00" {
                    return .fatal(
                        SyncStop(
                            what: "TourAPI answered XML although JSON was asked (_type=json)",
                            advice: "check --base-url: it must name TourAPI (or a proxy that passes _type on)"))
                }
                return verdict(code: code, message: message, status: answer.status, retryAfter: retryAfter)
            }
        }
        if answer.status == 429 || answer.status == 408 || answer.status >= 500 {
            return .transient("HTTP \(answer.status)", retryAfter: retryAfter)
        }
        let value: JSONValue
        do {
            value = try answer.body.withUnsafeBytes { try JSONValue.parse($0) }
        } catch {
            if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
                let reason = (error as? JSONError)?.reason ?? "\(error)"
                return .transient("the answer is cut or is not valid JSON (\(reason))", retryAfter: retryAfter)
            }
            if (200..<300).contains(answer.status) || trimmed.lowercased().contains("unexpected error") {
                let first = MessageText.oneLine(String(trimmed.prefix(80)), limit: 80)
                return .transient("a page that is not JSON (\(first))", retryAfter: retryAfter)
            }
            return statusVerdict(answer.status)
        }
        let header = value["response"]?["header"] ?? value
        guard let code = header["resultCode"]?.text else {
            if !(200..<300).contains(answer.status) { return statusVerdict(answer.status) }
            return .transient("a JSON answer without resultCode", retryAfter: retryAfter)
        }
        if code == "0000" || code == "00" {
            guard (200..<300).contains(answer.status) else { return statusVerdict(answer.status) }
            if value["response"]?["body"] == nil {
                return .transient("an answer without response.body", retryAfter: retryAfter)
            }
            return .ok
        }
        if code == "03" { return .ok }  // NODATA_ERROR: an empty page
        return verdict(code: code, message: header["resultMsg"]?.text, status: answer.status, retryAfter: retryAfter)
    }

    /// Codes that stop a sync, with what they mean and what to do. Every other code is retried.
    public static let fatalCodes: [String: (name: String, advice: String)] = [
        "10": (
            "INVALID_REQUEST_PARAMETER_ERROR",
            "a parameter was refused: check --content-type, --areacode, --ldong and --service"
        ),
        "11": ("NO_MANDATORY_REQUEST_PARAMETERS_ERROR", "a required parameter is missing: check --service"),
        "12": (
            "NO_OPENAPI_SERVICE_ERROR",
            "no such service or operation: check --service (KorService2) and --base-url (up to the service name, e.g. https://apis.data.go.kr/B551011)"
        ),
        "20": (
            "SERVICE_ACCESS_DENIED_ERROR",
            "the key is not approved for this service: apply for it (KorService2, KorWithService2 for barrier-free, KorPetTourService2 for pets) on data.go.kr"
        ),
        "21": ("TEMPORARILY_DISABLE_THE_SERVICEKEY_ERROR", "the key is disabled for now: see data.go.kr"),
        "22": (
            "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
            "the key's daily quota is used up: run again after midnight KST, when it resets (or ask data.go.kr for a larger quota); the next run continues where this one stopped"
        ),
        "30": (
            "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
            "the service key is not registered: check the key (data.go.kr's Decoding key, or its Encoding key as it is) and that it is approved for this service; a new key can take an hour or two to work"
        ),
        "31": ("DEADLINE_HAS_EXPIRED_ERROR", "the key's period of use has expired: extend it on data.go.kr"),
        "32": (
            "UNREGISTERED_IP_ERROR",
            "this machine's IP address is not registered for the key: add it on data.go.kr (or lift the IP restriction)"
        ),
        "33": ("UNSIGNED_CALL_ERROR", "the call was not signed as the key requires: see data.go.kr"),
    ]

    static func verdict(code: String, message: String?, status: Int, retryAfter: Double?) -> Verdict {
        let shown = MessageText.oneLine(code, limit: 16)
        let said = message.map { " " + MessageText.oneLine($0, limit: 120) } ?? ""
        if let known = fatalCodes[code] {
            return .fatal(
                SyncStop(what: "TourAPI refused the request: resultCode \(shown) \(known.name)", advice: known.advice))
        }
        return .transient("TourAPI resultCode \(shown)\(said) (HTTP \(status))", retryAfter: retryAfter)
    }

    static func statusVerdict(_ status: Int) -> Verdict {
        let advice =
            switch status {
            case 401, 403: "the key was refused: check it and that it is approved for this service"
            case 404: "no such path: check --base-url (up to the service name) and --service"
            default: "check --base-url and --service"
            }
        return .fatal(SyncStop(what: "TourAPI answered HTTP \(status)", advice: advice))
    }

    /// The text of the first `<name>…</name>` in `text`.
    static func tag(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return String(text[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
