"""The run store: its interface (`Store`), the SQL both backends share, SQLite (the default)
and PostgreSQL (shared by many servers), opened by `open_store`.
"""

from ._interface import FLUSH_S, STORE_ENV, STORE_WRITE_S, RunRow, Store
from ._open import open_store
from ._sqlite import RunStore

__all__ = ["FLUSH_S", "STORE_ENV", "STORE_WRITE_S", "RunRow", "RunStore", "Store", "open_store"]
