// One import gives the whole library: the model, the cache, the regions, the tiles and the use-cases.
@_exported import NearbyCore
@_exported import NearbyRegions
@_exported import NearbyStore
@_exported import NearbyTiles
