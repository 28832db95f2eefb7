import Foundation
import NearbyKit

/// The OpenAPI 3.1 document served at `/openapi.json`. The `/v1/places` parameters come from
/// `QueryParameters.all`, so they cannot drift from the parser; a test asks every documented path.
enum OpenAPIDocument {
    static let json: [UInt8] = {
        let data = try! JSONSerialization.data(
            withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        return Array(data) + [0x0A]
    }()

    static var document: [String: Any] {
        func parameter(
            _ name: String, _ description: String, required: Bool = false, type: String = "string",
            in location: String = "query"
        ) -> [String: Any] {
            ["name": name, "in": location, "required": required, "description": description, "schema": ["type": type]]
        }
        func response(_ description: String, _ type: String = "application/json") -> [String: Any] {
            ["description": description, "content": [type: ["schema": ["type": "object"]]]]
        }
        let errors: [String: Any] = [
            "400": response("Bad input: {status, parameter, error} naming the parameter"),
            "409": response("A cursor from an older cache generation"),
            "503": response("No answer within the server's --timeout (Retry-After: 1)"),
        ]
        let query =
            QueryParameters.all.map { p in
                parameter(p.name, p.help, type: p.isFlag ? "boolean" : "string")
            } + [
                parameter(
                    "format",
                    "The answer's format (default json, {total, page, next, places}; or as Accept names its media type): "
                        + OutputFormat.allCases.map {
                            "\($0.names.joined(separator: " or ")): \($0.summary) (\($0.bareMediaType))"
                        }.joined(separator: "; ") + "."),
                parameter("fields", "Output fields, comma-separated (default: all)."),
            ]
        var paths: [String: Any] = [
            "/v1/places": [
                "get": [
                    "summary":
                        "Places near a point, in a box or everywhere: filtered, sorted, paged (nearby query's parameters).",
                    "parameters": query,
                    "responses": errors.merging([
                        "401": response(
                            "A personal parameter (bookmarked, min-rating, …, a personal sort key) without a valid Authorization: Bearer TOKEN, or a keyword query with a token that names no active user; the token names the user (user= is refused), and a keyword query with one records its keyword in that user's search history (no-history=true: not)"
                        ),
                        "200": [
                            "description":
                                "One page; X-Total-Count, X-Next-Cursor and X-Cache-Generation headers (and Nearby-Partial when upstream could not fill in the area, with --fallback).",
                            "content": Dictionary(
                                uniqueKeysWithValues: OutputFormat.allCases.map { f in
                                    (
                                        f.bareMediaType,
                                        ["schema": ["type": f == .json || f == .geojson ? "object" : "string"]]
                                    )
                                }),
                        ],
                    ]) { a, _ in a },
                ]
            ],
            "/v1/places/{id}": [
                "get": [
                    "summary": "One place by id.",
                    "parameters": [
                        parameter("id", "The place's id.", required: true, in: "path"),
                        parameter("fields", "Output fields (default: all)."),
                    ],
                    "responses": ["200": response("The place"), "404": response("No such id"), "503": errors["503"]!],
                ]
            ],
            "/v1/distance": [
                "get": [
                    "summary": "Distance in metres between two points under a distance model.",
                    "parameters": ["lat1", "lon1", "lat2", "lon2"].map {
                        parameter($0, "WGS84 degrees.", required: true, type: "number")
                    }
                        + [
                            parameter(
                                "distance",
                                "haversine (default), geodesic, projected, projected:EPSG:nnnn or projected:utm.")
                        ],
                    "responses": [
                        "200": response("{distance, model}"), "400": response("Bad input naming the parameter"),
                    ],
                ]
            ],
            "/v1/where": [
                "get": [
                    "summary":
                        "The 시도, 시군구, 읍면동 and 리 at a point, as nearby where; at sea or abroad region \"unknown\" with the nearest region and distance_m.",
                    "parameters": [
                        parameter("lat", "WGS84 degrees, -90…90.", required: true, type: "number"),
                        parameter("lon", "WGS84 degrees, -540…540 (wrapped).", required: true, type: "number"),
                    ],
                    "responses": [
                        "200": response(
                            "{lat, lon, region, code, sido, sigungu, emd, ri} or {…, region: unknown, nearest, distance_m}"
                        ),
                        "400": response("Bad input naming the parameter"),
                    ],
                ]
            ],
            "/tiles/{z}/{x}/{y}.mvt": [
                "get": [
                    "summary":
                        "A Mapbox Vector Tile (2.1) of the places that pass the filters (layer places) and the region boundaries (layer regions); docs/tiles.md.",
                    "parameters": [
                        parameter("z", "Zoom, 0…\(TileID.maxZoom).", required: true, type: "integer", in: "path"),
                        parameter(
                            "x", "Column, 0…2^z - 1 from the antimeridian eastwards.", required: true, type: "integer",
                            in: "path"),
                        parameter(
                            "y", "Row, 0…2^z - 1 from the north (XYZ).", required: true, type: "integer", in: "path"),
                    ]
                        + QueryParameters.all.filter { !TileQuery.refused.contains($0.name) }.map { p in
                            parameter(p.name, p.help, type: p.isFlag ? "boolean" : "string")
                        },
                    "responses": [
                        "200": [
                            "description":
                                "The tile (empty when nothing is in it); gzip with Accept-Encoding: gzip; ETag per cache generation and query.",
                            "content": [VectorTile.mediaType: ["schema": ["type": "string", "format": "binary"]]],
                        ],
                        "304": ["description": "If-None-Match holds the tile's ETag"],
                        "400": response("Bad z, x, y or filter, naming the parameter"),
                        "503": errors["503"]!,
                    ],
                ]
            ],
            "/healthz": [
                "get": [
                    "summary": "Liveness: {status, generation, places}, and sync {…} with --sync.",
                    "responses": ["200": response("ok")],
                ]
            ],
            "/metrics": [
                "get": [
                    "summary":
                        "Prometheus text: requests by route and status, latency histograms, errors, cache generation and places, reloads.",
                    "responses": ["200": response("Prometheus exposition format 0.0.4", "text/plain")],
                ]
            ],
            "/openapi.json": ["get": ["summary": "This document.", "responses": ["200": response("OpenAPI 3.1")]]],
        ]
        // `/v1/clusters…`: the filters of /v1/places (not those of pages and order) and the cluster's own.
        let filters = QueryParameters.all.filter {
            !["sort", "arrange", "page", "cursor", "total", "explain", "limit", "bbox"].contains($0.name)
        }
        .map { p in parameter(p.name, p.help, type: p.isFlag ? "boolean" : "string") }
        let own = Dictionary(uniqueKeysWithValues: ClusterRequest.parameters.map { ($0.name, $0.help) })
        let format = parameter("format", "geojson (default: a FeatureCollection in supercluster's shape) or jsonl.")
        let options = ["radius-px", "extent", "min-points", "max-zoom"].map { parameter($0, own[$0]!) }
        let clusterResponses: [String: Any] = [
            "200": [
                "description":
                    "Clusters (cluster, cluster_id, point_count, point_count_abbreviated, expansion_zoom) and places alone; X-Cache-Generation.",
                "content": Dictionary(
                    uniqueKeysWithValues: ClusterFormat.allCases.map { f in
                        (
                            String(f.mediaType.prefix { $0 != ";" }),
                            ["schema": ["type": f == .geojson ? "object" : "string"]]
                        )
                    }),
            ],
            "400": errors["400"]!,
            "404": response("No cluster has the id (for these filters, options and cache generation)"),
            "503": errors["503"]!,
        ]
        let clusterID = parameter(
            "id", "A cluster id from /v1/clusters with the same filters and options.", required: true, type: "integer",
            in: "path")
        paths["/v1/clusters"] = [
            "get": [
                "summary": "The places the filters match, clustered at a zoom as supercluster does, inside a viewport.",
                "parameters": [
                    parameter("zoom", own["zoom"]!, required: true, type: "integer"), parameter("bbox", own["bbox"]!),
                ]
                    + options + filters + [format],
                "responses": clusterResponses,
            ]
        ]
        paths["/v1/clusters/{id}/children"] = [
            "get": [
                "summary": "The entries a cluster splits into one zoom deeper (supercluster's getChildren).",
                "parameters": [clusterID] + options + filters + [format],
                "responses": clusterResponses,
            ]
        ]
        paths["/v1/clusters/{id}/leaves"] = [
            "get": [
                "summary": "The places of a cluster, a page of them (supercluster's getLeaves).",
                "parameters": [
                    clusterID, parameter("limit", own["limit"]!, type: "integer"),
                    parameter("offset", own["offset"]!, type: "integer"),
                ]
                    + options + filters + [format],
                "responses": clusterResponses,
            ]
        ]
        for (path, summary, type) in MapPage.documented {
            paths[path] = ["get": ["summary": summary, "responses": ["200": response("The file", type)]]]
        }
        for operation in TourAPI.served {
            let names =
                TourAPI.mapped.keys.sorted() + ["contentId", "serviceKey", "MobileOS", "MobileApp"] + operation.flags
            let type: [String: Any] = [
                "name": "_type", "in": "query", "required": false,
                "description": "The envelope: xml (also when absent or empty, as TourAPI) or json; case-insensitive.",
                "schema": ["type": "string", "enum": TourAPI.typeValues],
            ]
            /// Both envelopes, the format `_type` picks.
            func tourResponse(_ description: String) -> [String: Any] {
                let schema: [String: Any] = ["schema": ["type": "object"]]
                return [
                    "description": description,
                    "content": [TourAPI.Format.xml.mediaType: schema, TourAPI.Format.json.mediaType: schema],
                ]
            }
            var responses = [
                "200": tourResponse("TourAPI's envelope, resultCode 0000"),
                "400": tourResponse("TourAPI's error envelope"),
                "503": tourResponse("TourAPI's error envelope, resultCode 05 (--timeout)"),
            ]
            if operation.codesAreSynced {
                responses["501"] = tourResponse(
                    "TourAPI's error envelope, resultCode 12: the cache has not synced this code list "
                        + "(nearby sync tourapi --lang \(operation.language.code))")
            }
            paths[operation.path] = [
                "get": [
                    "summary":
                        "TourAPI \(operation.service) \(operation.name), answered from the cache (docs/tourapi-compat.md).",
                    "parameters": names.map {
                        parameter(
                            $0, TourAPI.mapped[$0].map { "As Nearby's \($0)." } ?? "See docs/tourapi-compat.md.",
                            required: operation.required.contains($0))
                    } + [type],
                    "responses": responses,
                ]
            ]
        }
        paths.merge(MeAPI.openAPIPaths) { a, _ in a }
        return [
            "openapi": "3.1.0",
            "components": ["securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]]],
            "info": [
                "title": "Nearby", "version": NearbyVersion.current,
                "description": "Nearby-search over a local cache of places; TourAPI-compatible operations.",
            ],
            "paths": paths,
        ]
    }
}
