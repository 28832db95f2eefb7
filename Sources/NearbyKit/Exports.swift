// One import gives the whole library: the model, the cache, the regions and the use-cases.
@_exported import NearbyCore
@_exported import NearbyRegions
@_exported import NearbyStore
