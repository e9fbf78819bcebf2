"""``system.health``: uptime, load, memory and disk figures read from this machine, plus the host's
own health report (plugins, load errors, dependency checks).

It reads ``/proc``, ``sysinfo(2)`` and ``statvfs`` only, never the network, so it is ``read_only``
+ ``local`` and runs without confirmation. Where ``/proc`` shows only processes (systemd's
``ProcSubset=pid``, as the shipped unit sets), the figures come from ``sysinfo(2)`` instead.
The dependency checks it includes are those the plugins registered; they reach only upstreams
the operator configured.
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path
from typing import Literal

import msgspec

import steward

PROCESS_STARTED = time.monotonic()


class NoArguments(msgspec.Struct, forbid_unknown_fields=True):
    pass


class Load(msgspec.Struct):
    one_minute: float
    five_minutes: float
    fifteen_minutes: float


class Memory(msgspec.Struct):
    total_bytes: int
    available_bytes: int


class Disk(msgspec.Struct):
    total_bytes: int
    free_bytes: int


class Check(msgspec.Struct):
    name: str
    plugin: str
    ok: bool
    detail: str


class Health(msgspec.Struct):
    status: Literal["ok", "degraded"]
    degraded_because: list[str]
    system_uptime_seconds: float
    process_uptime_seconds: float
    load: Load
    memory: Memory
    data_disk: Disk
    plugins: list[str]
    load_errors: list[str]
    checks: list[Check]


class _SysInfo(ctypes.Structure):
    _fields_ = (
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_ushort),
        ("totalhigh", ctypes.c_ulong),
        ("freehigh", ctypes.c_ulong),
        ("mem_unit", ctypes.c_uint),
        ("reserved", ctypes.c_char * 8),
    )


def sysinfo() -> _SysInfo:
    """The kernel's ``sysinfo(2)``: needs no ``/proc``."""
    info = _SysInfo()
    if ctypes.CDLL(None, use_errno=True).sysinfo(ctypes.byref(info)) != 0:
        raise OSError(ctypes.get_errno(), "sysinfo failed")
    return info


def read_meminfo(path: Path = Path("/proc/meminfo")) -> Memory:
    try:
        text = path.read_text()
    except OSError:
        info = sysinfo()
        unit = info.mem_unit or 1
        return Memory(total_bytes=info.totalram * unit, available_bytes=(info.freeram + info.bufferram) * unit)
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = int(value.split()[0]) * 1024
    return Memory(total_bytes=fields["MemTotal"], available_bytes=fields.get("MemAvailable", fields["MemFree"]))


def read_uptime(path: Path = Path("/proc/uptime")) -> float:
    try:
        return float(path.read_text().split()[0])
    except OSError:
        return round(time.clock_gettime(time.CLOCK_BOOTTIME), 2)


def read_load() -> Load:
    try:
        return Load(*os.getloadavg())
    except OSError:
        one, five, fifteen = (value / 65536 for value in sysinfo().loads)
        return Load(round(one, 2), round(five, 2), round(fifteen, 2))


def read_disk(path: Path) -> Disk:
    stats = os.statvfs(path)
    return Disk(total_bytes=stats.f_blocks * stats.f_frsize, free_bytes=stats.f_bavail * stats.f_frsize)


async def system_health(arguments: NoArguments, context: steward.InvocationContext) -> Health:
    report = await context.health()
    return Health(
        status=report.status,
        degraded_because=report.reasons,
        system_uptime_seconds=read_uptime(),
        process_uptime_seconds=round(time.monotonic() - PROCESS_STARTED, 3),
        load=read_load(),
        memory=read_meminfo(),
        data_disk=read_disk(context.data_dir),
        plugins=report.plugins,
        load_errors=[f"{error.plugin}: {error.message}" for error in report.load_errors],
        checks=[Check(check.name, check.plugin, check.ok, check.detail) for check in report.checks],
    )


def health_capability() -> steward.Capability:
    return steward.Capability(
        name="system.health",
        version=1,
        title="Check this device's health",
        action="Check this device's uptime, load, memory, disk and plugins",
        description="Report this Steward host's health: uptime, load, memory, free disk, loaded plugins "
        "and whether their dependencies answer.",
        arguments=NoArguments,
        result=Health,
        side_effect=steward.SideEffect.READ_ONLY,
        network=steward.Network.LOCAL,
        handler=system_health,
        bounds=steward.Bounds(timeout_seconds=10),
    )
