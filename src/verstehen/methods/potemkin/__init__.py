"""Potemkin understanding (Mancoridis et al., ICML 2025): define a concept (the keystone), then
classify, generate and edit; incoherence; the self-judge lower bound."""
