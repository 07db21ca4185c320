"""What several methods share of scopes: the `Question` and `Scope` protocol (`base`) and the
multiple-choice scope (`mcq`: potemkin's self-judgment and consistency ask its questions too).
The scopes by name (`get_scope`) and the scopes only certification draws from live in
`verstehen.methods.certification.scopes`.
"""
