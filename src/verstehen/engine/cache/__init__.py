"""The cache of model calls: a call asked twice is paid for once.

`keys` names a call (the request it is made from, its key, the checksum of its response, the
file's default place), `schema` is the file's format and its migration, `store` the `Cache`
itself (reads on the caller's thread), `writes` how results get into the file (committed on
the event loop that stored them; a writer thread outlasts another process's lock), `pending`
the rows on the way and `values` the shapes a stored value may have.
"""

from verstehen.engine.cache.keys import (
    GenerateRequest,
    LogprobsRequest,
    cache_file,
    call_key,
    checksum,
    default_cache_path,
)
from verstehen.engine.cache.store import Cache
from verstehen.engine.cache.writes import CacheUnwritable

__all__ = ["Cache", "CacheUnwritable", "GenerateRequest", "LogprobsRequest", "cache_file",
           "call_key", "checksum", "default_cache_path"]
