"""chainret's NLI cross-encoder: loader/scorer (model), data selection, training, evaluation, export, card.

Importing this package is cheap; torch and transformers load inside the functions that need them.
"""

from chainret.research.nli.model import CANONICAL, NLIModel, default_model_path, load_nli

__all__ = ["CANONICAL", "NLIModel", "default_model_path", "load_nli"]
