"""Words to interpretation: relation words (``lexicon``), tolerant readings (``understand``), and a request
read as one of the catalog's declared phrasings (``chainret.catalog.patterns``) with a start entity (``interpret``)."""
