"""The live side of a game: ``snapshot`` (the cached read model every page shows) and ``stream`` (its
server-sent events). The version counter they follow is ``tournaments.versions``, below everything."""
