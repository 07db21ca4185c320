"""What every method's HTML report shares: the page and its pieces (`html.py`), inline SVG
drawing (`svg.py`) and PNG figures (`figures.py`); terminal text is `verstehen.text`."""
