"""The typed errors of the suite and of the reference target."""

from __future__ import annotations

__all__ = ["NoRequestSent", "SuiteError", "UnsupportedContent"]


class UnsupportedContent(Exception):
    """Neither the tool-result block nor a user message of this api and model can carry a part.

    Raised before anything is sent. It names everything needed to act on it: the api, the
    model, the content type, and the tool call the part came from.
    """

    def __init__(
        self,
        *,
        api: str,
        model: str,
        content_type: str,
        tool_name: str | None,
        tool_call_id: str | None,
        reason: str,
    ) -> None:
        self.api = api
        self.model = model
        self.content_type = content_type
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.reason = reason
        where = (
            f"from tool {tool_name!r} (call {tool_call_id!r})"
            if tool_call_id is not None
            else "in a user message"
        )
        super().__init__(f"{api} model {model!r} cannot carry {content_type} {where}: {reason}")

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by its fields (the arguments are keyword-only), so that a refusal raised in a
        worker process comes back as itself (`conformance.judging.isolation`)."""
        fields = (self.api, self.model, self.content_type, self.tool_name, self.tool_call_id)
        return (_unsupported, (*fields, self.reason))


def _unsupported(
    api: str,
    model: str,
    content_type: str,
    tool_name: str | None,
    tool_call_id: str | None,
    reason: str,
) -> UnsupportedContent:
    return UnsupportedContent(
        api=api,
        model=model,
        content_type=content_type,
        tool_name=tool_name,
        tool_call_id=tool_call_id,
        reason=reason,
    )


class SuiteError(Exception):
    """An exception of the suite's own machinery (the toolkit, the recorder, the fixture host).

    It never counts as a target's refusal, whatever the target declares: a cell that ends in
    one is `crashed`.
    """


class NoRequestSent(SuiteError):
    """A target's run ended without raising and without a request reaching the recorder."""
