"""The outcome codes of the websearch family, each with the status the invoke and native APIs answer."""

import steward


class WebsearchCode(steward.OutcomeCode):
    UPSTREAM_BLOCKED = (
        "UPSTREAM_BLOCKED",
        502,
        "The site refused the fetch (403, 429 or a bot challenge); ask again with recover for an archived copy.",
    )
    FETCH_HTTP_ERROR = "FETCH_HTTP_ERROR", 502, "The page answered with an HTTP client error (4xx)."
    DNS_RESOLUTION_FAILED = "DNS_RESOLUTION_FAILED", 502, "The site's name has no usable DNS answer."
    TLS_FAILED = "TLS_FAILED", 502, "The site's TLS certificate could not be verified."
    TOO_MANY_REDIRECTS = "TOO_MANY_REDIRECTS", 502, "The site redirected more often than max_redirects allows."
    INVALID_CONTENT = "INVALID_CONTENT", 502, "The body is not what its content type says (malformed JSON, …)."
    EXTRACTION_FAILED = "EXTRACTION_FAILED", 502, "The page could not be processed within its time and memory limits."
    JQ_FAILED = "JQ_FAILED", 400, "The jq program did not compile, failed, or was stopped at its limits."
    JQ_NOT_APPLICABLE = "JQ_NOT_APPLICABLE", 400, "A jq program was given for content that is not JSON."
