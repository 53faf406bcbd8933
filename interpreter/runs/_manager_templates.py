"""The run manager's face for the templates it serves: the library's templates, their sources and
the files it rejected, and templates saved from a session's kept calls. Runs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taskplate.dsl import Diagnostic, Template

from .._library import TemplateLibrary
from .._templates_from_calls import Saved, save_kept_calls
from ..store import Store


class ManagerTemplates:
    """What a caller of the manager asks of its templates, by the manager's own methods: a
    caller never reaches into `library` itself."""

    home: Path
    library: TemplateLibrary
    store: Store

    def templates(self, space: str | None = None) -> list[Template]:
        """The templates served, each version, as list_task_templates lists them; `space`: with
        a remote principal's own saved ones (`Principal.space`), never another's."""
        return self.library.all(space)

    def template(
        self, template_id: str, version: str | None = None, space: str | None = None
    ) -> Template:
        """One served template (TEMPLATE_NOT_FOUND, TEMPLATE_DISABLED: why not); `space`: a
        remote principal's own saved ones seen too."""
        return self.library.get(template_id, version, space)

    def template_info(self, template: Template) -> dict[str, Any]:
        """The template as list_task_templates shows it."""
        return self.library.info(template)

    def is_shipped(self, template: Template) -> bool:
        """Whether the template is one taskplate ships (not the operator's own)."""
        return self.library.is_shipped(template)

    def template_source(self, template: Template) -> str:
        """The YAML text the template was read from."""
        return self.library.sources[(template.id, template.version)]

    def own_template_source(self, space: str | None, template_id: str, version: str) -> str | None:
        """The YAML text of a template the remote principal of `space` saved; None when it
        saved no such one (another's is not its own)."""
        template = self.library.owned.get(space or "", {}).get(template_id, {}).get(version)
        return None if template is None else self.library.text(template, space)

    def rejected_templates(self) -> dict[str, list[Diagnostic]]:
        """Template files not served because they do not check: path -> why."""
        return dict(self.library.rejected)

    async def refresh_templates(self) -> bool:
        """Reload when a template file, a configuration or a lock file changed; True when
        something changed (runs under way keep the templates they started with)."""
        return await self.library.refresh()

    async def keep_call(self, source: str, **fields: Any) -> None:
        """One succeeded action call of a recorded session, appended after its last."""
        await self.store.keep_call(source, None, **fields)

    async def save_kept_calls(self, source: str, name: str, **how: Any) -> Saved:
        """The kept calls of `source` saved as the user template `name` (`how`: its
        description, overwrite, and `space`: a remote principal's own, `Principal.space`)."""
        return await save_kept_calls(self.store, self.library, self.home, source, name, **how)
