"""NLI verification over sub-questions (seed 000): hypothesis operator, entailment signals, evidence
selectors, later-hop support and no-LLM decomposition. Heavy imports (torch, transformers) happen
only inside the functions that score pairs, never at import time."""
