"""Steward plugin ``websearch``: web.search on SearXNG, web.fetch behind the SSRF guard, and the
fetch service for agent fleets (``/v1/fetch``, ``/v1/search``, Firecrawl-compatible ``/v2/…``)."""

import logging

import click
from starlette.routing import BaseRoute

import steward
from steward_websearch.cli import extract_command, fetch_command, search_command, websearch_group
from steward_websearch.codes import WebsearchCode
from steward_websearch.service.fetch_capability import fetch_capability
from steward_websearch.service.firecrawl import firecrawl_routes
from steward_websearch.service.fleet import service_capabilities
from steward_websearch.service.memory import memory_backend
from steward_websearch.service.routes import ServiceGate, native_routes
from steward_websearch.service.search import search_capability, searxng_health
from steward_websearch.settings import WebsearchSettings

log = logging.getLogger("steward.plugins.websearch")

WEB_SEARCH_FLAG = steward.PolicyFlag(
    "web_search_enabled", "Lets web.search and web.fetch reach the internet.", label="Web search and pages"
)


@steward.hookimpl
def register_settings() -> type[WebsearchSettings]:
    return WebsearchSettings


@steward.hookimpl
def register_policy_flags() -> list[steward.PolicyFlag]:
    return [WEB_SEARCH_FLAG]


@steward.hookimpl
def register_outcome_codes() -> list[type[steward.OutcomeCode]]:
    return [WebsearchCode]


@steward.hookimpl
def register_capabilities(config: steward.Config) -> list[steward.Capability]:
    settings = config.plugin_settings("websearch")
    if settings.allowed_networks:
        log.warning("the fetch guard lets these non-public networks through: %s", ", ".join(settings.allowed_networks))
    return [search_capability(), fetch_capability(), *service_capabilities()]


@steward.hookimpl
def register_health_checks(config: steward.Config) -> list[steward.HealthCheck]:
    settings = config.plugin_settings("websearch")
    checks = [steward.HealthCheck("searxng", lambda: searxng_health(settings))]
    memory = memory_backend(settings.context, config.data_dir)
    if memory is not None:
        checks.append(steward.HealthCheck("memory", memory.check))
    return checks


@steward.hookimpl
def register_routes(config: steward.Config) -> list[BaseRoute]:
    gate = ServiceGate(config.plugin_settings("websearch"))
    return [*native_routes(gate), *firecrawl_routes(gate)]


@steward.hookimpl
def register_commands(cli: click.Group) -> None:
    for command in (extract_command, fetch_command, search_command, websearch_group):
        cli.add_command(command)
