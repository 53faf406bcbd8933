"""What a run is wired to, built once by the run manager and handed down (`RunWiring`), and what
one run is (`RunJob`): nothing that executes a run reaches back into the manager.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from taskplate.browser import Network, OwnProfiles, Proxy, Session, Sessions, UrlPolicy, sweep
from taskplate.contract import TrustLevel
from taskplate.dsl import Template

from .._artifacts import ArtifactStore
from .._confirm import Asker, ConfirmPolicy
from .._library import TemplateLibrary
from .._principal import space_of
from ..store import Store
from ._inputs import Limits
from ._queue import RunQueue
from ._settlement import Settlement

if TYPE_CHECKING:
    from taskplate.browser import Resolver
    from taskplate.stdlib import CallerModel, Sampler, WebConfig

    from .._action_steps import StepProbe

T = TypeVar("T")


@dataclass
class RunWiring:
    """The same for every run of one manager. `confirm` and `terminal` may be set after it is
    built (`dsl run --confirm`, a terminal to ask on), before runs start."""

    store: Store
    limits: Limits
    queue: RunQueue  # runs waiting for the store to start them, each principal its share
    settlement: Settlement  # how a run ends
    artifacts: ArtifactStore
    library: TemplateLibrary  # templates, and the actions they may call
    sessions: Sessions  # the browser runtime's sessions
    profiles: Any  # ProfileStore: a run's session seeded from one, published back
    resolver: Resolver  # host names as Chromium resolves them, for the URL policy
    allow_hosts: tuple[str, ...] = ()
    deny_hosts: tuple[str, ...] = ()
    web: WebConfig | None = None  # plain HTTP (fetch): User-Agent, per-host limit, robots.txt
    confirm: ConfirmPolicy = ConfirmPolicy.ASK  # local confirmations nobody can give
    terminal: Asker | None = None  # `dsl run` on a terminal asks there
    # `dsl record`/`dsl test`: the chosen model wrapped to keep its answers, or replaced by a
    # recording's answers
    models: Callable[[Sampler], Sampler] | None = None
    probe: StepProbe | None = None  # `dsl test --suggest`: reads browser steps' pages
    # and the providers' tools wrapped to keep their answers, or answered from a recording
    tools: Callable[[Any], Any] | None = None

    @property
    def catalog(self) -> Any:
        """The actions a step may call: built-in ones and providers' tools."""
        catalog = self.library.actions or self.library.catalog
        return self.tools(catalog) if self.tools is not None else catalog

    def url_policy(self, trust: TrustLevel, *, proxy: Proxy | None = None) -> UrlPolicy:
        """`proxy`: the run's requests go through it, and it resolves the names."""
        return UrlPolicy(trust, self.allow_hosts, self.deny_hosts, self.resolver, proxy=proxy)

    def network_for(
        self,
        template: Template,
        options: dict[str, Any],
        trust: TrustLevel,
        inputs: dict[str, Any] | None = None,
        profile_id: str | None = None,
        *,
        stored: bool = False,
    ) -> Network:
        """A run's network (`run_network`; its options keep the proxy masked)."""
        from ._network import run_network

        settings = self.library.configuration.network
        return run_network(
            template, options, trust, settings, stored=stored, inputs=inputs, profile_id=profile_id
        )

    def operator_network(self, profile: str | None = None) -> Network:
        """The network of sessions and calls outside a run: the operator's proxy (the
        profile's, when it has one)."""
        from ._network import operator_network

        return operator_network(self.library.configuration.network, profile)

    def model_for(self, caller: CallerModel | None) -> Sampler:
        """The run's language model: the caller's (MCP sampling) when it can sample, else the
        `[llm]` endpoint of the configuration (always it, when its `use` is `always`); with
        neither, the caller's (its error says why it cannot) or one that says what to set."""
        chosen = self._chosen_model(caller)
        return self.models(chosen) if self.models is not None else chosen

    def _chosen_model(self, caller: CallerModel | None) -> Sampler:
        from taskplate.stdlib import ChatCompletions, NoSampler

        endpoint = self.library.configuration.llm
        if endpoint is not None and (caller is None or endpoint.always or not caller.can_sample()):
            return ChatCompletions(endpoint)
        if caller is not None:
            return caller
        return NoSampler(
            "no language model for llm_extract: this run has no MCP client to ask; "
            + self.library.configuration.no_llm,
            "Name an OpenAI-compatible endpoint in the [llm] table of taskplate.toml (url, "
            "model, token_env), or set TASKPLATE_LLM_URL and TASKPLATE_LLM_MODEL (and "
            "TASKPLATE_LLM_KEY); or run the template through an MCP client that supports "
            "sampling (`dsl serve`).",
        )

    def profiles_of(self, trust: TrustLevel, principal: str | None) -> Any:
        """The profiles a caller names: a local caller (the operator) the data home's
        `profiles/`; a remote one its own (`principals/<space>/profiles/`, capped, unused ones
        expiring) and those the operator shares with it (`[profiles] shared`)."""
        if trust is TrustLevel.LOCAL:
            return self.profiles
        settings = self.library.configuration.profiles
        return OwnProfiles(
            self.principals / space_of(principal) / "profiles",
            self.profiles,
            settings.shared_with(principal),
            settings.most,
            settings.unused_days * 86400,
        )

    @property
    def principals(self) -> Any:
        """The folder of remote principals' own profiles and saved templates."""
        return self.profiles.root.parent / "principals"

    def sweep_profiles(self) -> None:
        """Every remote principal's profiles unused for `[profiles] unused_days` removed
        (blocking: run in a worker thread)."""
        unused_s = self.library.configuration.profiles.unused_days * 86400
        try:
            spaces = [p for p in self.principals.iterdir() if p.is_dir()]
        except FileNotFoundError:
            return
        for space in spaces:
            sweep(space / "profiles", unused_s)

    async def open_session(
        self,
        trust: TrustLevel,
        profile_id: str,
        policy: UrlPolicy | None = None,
        record: bool = False,
        network: Network | None = None,
        principal: str | None = None,
    ) -> Session:
        """A new session under the caller's URL policy (a run's own: `policy`), seeded from the
        profile's snapshot (the caller's: `profiles_of`); `record`: its network recorded
        (save_template's first case)."""
        snapshot = self.profiles_of(trust, principal).read(profile_id)
        network = network if network is not None else self.operator_network(profile_id)
        if policy is None:
            policy = self.url_policy(trust, proxy=network.proxy)
        session = await self.sessions.create(
            policy=policy, seed=snapshot.state, record=record, network=network
        )
        session.profile_id, session.profile_version = snapshot.profile_id, snapshot.version
        return session


@dataclass
class RunJob:
    """One run as admitted: what it runs, with what, for whom."""

    run_id: str
    template: Template
    inputs: dict[str, Any]  # filled in: defaults applied, secrets in clear (never stored)
    options: dict[str, Any]  # as the run's row keeps them
    trust: TrustLevel
    given: Session | None = None  # a session the caller handed in (kept open after the run)
    profile_id: str | None = None
    secrets: list[str] = field(default_factory=list)  # the secret inputs' values, masked
    principal: str | None = None  # the caller that started it (`Principal.name`)
    network: Network | None = None  # its proxy, identity and host pace (None: the operator's)
    resumed: bool = False  # adopted from a dead owner: it holds its slot, its checkpoints found


class Wired(Generic[T]):
    """A setting of the run manager kept in its `wiring` (`manager.confirm = …` sets the wiring's):
    `dsl run` and `dsl serve` set them after the manager is made, every run reads the wiring."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, manager: Any, owner: type | None = None) -> T:
        value: T = getattr(manager.wiring, self.name)
        return value

    def __set__(self, manager: Any, value: T) -> None:
        setattr(manager.wiring, self.name, value)
