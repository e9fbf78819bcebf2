"""Callers the executor tests invoke as."""

import steward

ALICE = steward.Principal("alice", frozenset({"invoke"}))
BOB = steward.Principal("bob", frozenset({"invoke"}))
