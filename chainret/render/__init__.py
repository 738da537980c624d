"""A trace rendered for people: HTML and inline SVG (``html``), shared by ``/ui`` and ``trace show --html``."""
