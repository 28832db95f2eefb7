import NearbyCore
