"""The weights of chainret's NLI model as their own distribution (data only; nothing to import but the path).

``chainret.research.nli.model.default_model_path`` finds them here when this package is installed
(``pip install ./packages/chainret-nli-model`` from a checkout), else in the checkout itself.
"""

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent / "nli-minilm-l6"
