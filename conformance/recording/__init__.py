"""Recording: a payload as the wire and the golden files hold it.

Owns the cassettes (record and replay through each api's official client: `cassettes`, `send`),
the local provider double that answers like each provider (`double`), the secret scanner that keeps
credentials out of cassettes (`secrets`), the official SDKs' request types as validators
(`sdk_schema`) and snapshot media stored once by digest (`media`, `media_audit`). May import the
scenarios, the matrix and the shared words; never a target, the classifier or the judging above it.
"""
