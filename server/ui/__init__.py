"""The runs page: the run store as a small web page (runs with status, template, timing and
progress; one run's inputs, result, artifacts, a timeline of its steps per tab with each
failure's screenshot, and Cancel and Resume), server-rendered HTML with a little script
(`ui.js`, `ui.css` beside these modules).

Reads runs through the run manager's reads and cancels through the manager; runs nothing (a
run's repair is written by the `repairer` the caller gives, `dsl ui`'s `apply_run_repair`).
Every text is escaped; the forms carry a token bound to the run and are accepted from this
page's own origin only.
"""

from ._access import UiAccess
from ._app import ui_app

__all__ = ["UiAccess", "ui_app"]
