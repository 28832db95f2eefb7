import CPROJ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// PROJ's functions, loaded with `dlopen` the first time a geodesic or projected distance needs them.
///
/// Why not link PROJ: `libproj` brings libcurl, libtiff, GnuTLS and a dozen more shared objects, and
/// loading and relocating them is most of a cold `nearby` process's start-up, paid by every one-shot
/// query although only the `geodesic` and `projected` models use PROJ (BENCHMARKS.md, "One-shot
/// queries"). `Sources/CPROJ` therefore gives the headers (types and constants) without linking, and
/// this type holds the few functions Nearby calls, each checked at load.
///
/// The library is the one the headers came from: `libproj.so` (the development symlink that
/// `libproj-dev` installs) or a versioned name, accepted only when its major version equals the
/// headers' `PROJ_VERSION_MAJOR`, so a call never goes through a mismatched ABI.
struct PROJLibrary: @unchecked Sendable {
    // @unchecked: immutable C function pointers.
    typealias Context = OpaquePointer
    typealias Object = OpaquePointer
    typealias CString = UnsafePointer<CChar>

    let contextCreate: @convention(c) () -> Context?
    let contextDestroy: @convention(c) (Context?) -> Context?
    let logLevel: @convention(c) (Context?, PJ_LOG_LEVEL) -> PJ_LOG_LEVEL
    let setEnableNetwork: @convention(c) (Context?, Int32) -> Int32
    let create: @convention(c) (Context?, CString?) -> Object?
    let destroy: @convention(c) (Object?) -> Object?
    let getName: @convention(c) (Object?) -> CString?
    let getType: @convention(c) (Object?) -> PJ_TYPE
    let createCRSToCRS: @convention(c) (Context?, CString?, CString?, OpaquePointer?) -> Object?
    let normalizeForVisualization: @convention(c) (Context?, Object?) -> Object?
    let asPROJString: @convention(c) (Context?, Object?, PJ_PROJ_STRING_TYPE, UnsafePointer<CString?>?) -> CString?
    let trans: @convention(c) (Object?, PJ_DIRECTION, PJ_COORD) -> PJ_COORD
    let transGeneric:
        @convention(c) (
            Object?, PJ_DIRECTION,
            UnsafeMutablePointer<Double>?, Int, Int, UnsafeMutablePointer<Double>?, Int, Int,
            UnsafeMutablePointer<Double>?, Int, Int, UnsafeMutablePointer<Double>?, Int, Int
        ) -> Int
    let factors: @convention(c) (Object?, PJ_COORD) -> PJ_FACTORS
    let errnoReset: @convention(c) (Object?) -> Int32
    let crsGetCoordinateSystem: @convention(c) (Context?, Object?) -> Object?
    let csGetAxisInfo:
        @convention(c) (
            Context?, Object?, Int32, UnsafeMutablePointer<CString?>?, UnsafeMutablePointer<CString?>?,
            UnsafeMutablePointer<CString?>?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<CString?>?,
            UnsafeMutablePointer<CString?>?, UnsafeMutablePointer<CString?>?
        ) -> Int32
    let geodInit: @convention(c) (UnsafeMutablePointer<geod_geodesic>?, Double, Double) -> Void
    let geodInverse:
        @convention(c) (
            UnsafePointer<geod_geodesic>?, Double, Double, Double, Double,
            UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?
        ) -> Void

    /// The loaded library, or why it could not be loaded (a message naming what to install).
    static let shared: Result<PROJLibrary, DistanceModelError> = load()

    /// The library; a process without it stops with the reason, as a missing shared library stops a
    /// process that links it at start-up.
    static var functions: PROJLibrary {
        switch shared {
        case .success(let library): return library
        case .failure(let error): fatalError("\(error)")
        }
    }

    private static var candidates: [String] {
        #if canImport(Darwin)
            ["libproj.dylib", "libproj.\(PROJ_VERSION_MAJOR).dylib"]
        #else
            // Sonames of the PROJ major versions that share these headers' API (PROJ 6 to 9 and next).
            ["libproj.so"] + (15...30).reversed().map { "libproj.so.\($0)" }
        #endif
    }

    private static func load() -> Result<PROJLibrary, DistanceModelError> {
        var tried: [String] = []
        for name in candidates {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            tried.append(name)
            if let library = PROJLibrary(handle), library.majorVersion(handle) == Int(PROJ_VERSION_MAJOR) {
                return .success(library)
            }
            dlclose(handle)
        }
        return .failure(
            .proj(
                "cannot load PROJ \(PROJ_VERSION_MAJOR) (tried \(candidates.joined(separator: ", "))"
                    + (tried.isEmpty ? "" : "; wrong version or incomplete: \(tried.joined(separator: ", "))")
                    + "): install libproj-dev (scripts/install-deps.sh)"))
    }

    private func majorVersion(_ handle: UnsafeMutableRawPointer) -> Int? {
        typealias Info = @convention(c) () -> PJ_INFO
        guard let symbol = dlsym(handle, "proj_info") else { return nil }
        return Int(unsafeBitCast(symbol, to: Info.self)().major)
    }

    private init?(_ handle: UnsafeMutableRawPointer) {
        func f<T>(_ name: String) -> T? { dlsym(handle, name).map { unsafeBitCast($0, to: T.self) } }
        guard let contextCreate: @convention(c) () -> Context? = f("proj_context_create"),
            let contextDestroy: @convention(c) (Context?) -> Context? = f("proj_context_destroy"),
            let logLevel: @convention(c) (Context?, PJ_LOG_LEVEL) -> PJ_LOG_LEVEL = f("proj_log_level"),
            let setEnableNetwork: @convention(c) (Context?, Int32) -> Int32 = f("proj_context_set_enable_network"),
            let create: @convention(c) (Context?, CString?) -> Object? = f("proj_create"),
            let destroy: @convention(c) (Object?) -> Object? = f("proj_destroy"),
            let getName: @convention(c) (Object?) -> CString? = f("proj_get_name"),
            let getType: @convention(c) (Object?) -> PJ_TYPE = f("proj_get_type"),
            let createCRSToCRS: @convention(c) (Context?, CString?, CString?, OpaquePointer?) -> Object? =
                f("proj_create_crs_to_crs"),
            let normalizeForVisualization: @convention(c) (Context?, Object?) -> Object? =
                f("proj_normalize_for_visualization"),
            let asPROJString:
                @convention(c) (Context?, Object?, PJ_PROJ_STRING_TYPE, UnsafePointer<CString?>?)
                    -> CString? = f("proj_as_proj_string"),
            let trans: @convention(c) (Object?, PJ_DIRECTION, PJ_COORD) -> PJ_COORD = f("proj_trans"),
            let transGeneric:
                @convention(c) (
                    Object?, PJ_DIRECTION,
                    UnsafeMutablePointer<Double>?, Int, Int, UnsafeMutablePointer<Double>?, Int, Int,
                    UnsafeMutablePointer<Double>?, Int, Int, UnsafeMutablePointer<Double>?, Int, Int
                ) -> Int = f("proj_trans_generic"),
            let factors: @convention(c) (Object?, PJ_COORD) -> PJ_FACTORS = f("proj_factors"),
            let errnoReset: @convention(c) (Object?) -> Int32 = f("proj_errno_reset"),
            let crsGetCoordinateSystem: @convention(c) (Context?, Object?) -> Object? =
                f("proj_crs_get_coordinate_system"),
            let csGetAxisInfo:
                @convention(c) (
                    Context?, Object?, Int32, UnsafeMutablePointer<CString?>?, UnsafeMutablePointer<CString?>?,
                    UnsafeMutablePointer<CString?>?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<CString?>?,
                    UnsafeMutablePointer<CString?>?, UnsafeMutablePointer<CString?>?
                ) -> Int32 = f("proj_cs_get_axis_info"),
            let geodInit: @convention(c) (UnsafeMutablePointer<geod_geodesic>?, Double, Double) -> Void =
                f("geod_init"),
            let geodInverse:
                @convention(c) (
                    UnsafePointer<geod_geodesic>?, Double, Double, Double, Double,
                    UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?
                ) -> Void = f("geod_inverse")
        else { return nil }
        self.contextCreate = contextCreate
        self.contextDestroy = contextDestroy
        self.logLevel = logLevel
        self.setEnableNetwork = setEnableNetwork
        self.create = create
        self.destroy = destroy
        self.getName = getName
        self.getType = getType
        self.createCRSToCRS = createCRSToCRS
        self.normalizeForVisualization = normalizeForVisualization
        self.asPROJString = asPROJString
        self.trans = trans
        self.transGeneric = transGeneric
        self.factors = factors
        self.errnoReset = errnoReset
        self.crsGetCoordinateSystem = crsGetCoordinateSystem
        self.csGetAxisInfo = csGetAxisInfo
        self.geodInit = geodInit
        self.geodInverse = geodInverse
    }

    /// `proj_coord(x, y, z, t)`, built here rather than called.
    static func coord(_ x: Double, _ y: Double) -> PJ_COORD { PJ_COORD(v: (x, y, 0, 0)) }
}
