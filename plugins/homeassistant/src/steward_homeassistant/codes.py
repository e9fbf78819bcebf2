"""The outcome codes of the Home Assistant family."""

import steward


class HomeAssistantCode(steward.OutcomeCode):
    ENTITY_NOT_FOUND = (
        "ENTITY_NOT_FOUND",
        404,
        "The allowlisted entity no longer exists in Home Assistant (removed or renamed).",
    )
