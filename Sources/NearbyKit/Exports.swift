// One import gives the whole library: the model, the cache and the use-cases.
@_exported import NearbyCore
@_exported import NearbyStore
